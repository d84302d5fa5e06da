// The hedron demo panel: the recipe's own page, run by the real htmx in a same-origin iframe.
//
// Nothing here decides which request htmx sends or how it swaps the answer: htmx does, in
// the app's real document (its htmx config, its CSRF header, its stylesheet, hedron.js). The
// panel gives that page two things instead of the network and the wall clock:
//   - a virtual clock: setTimeout/setInterval run when the panel moves virtual time on, in
//     time order (htmx's polls and settle delays are timers);
//   - an XMLHttpRequest that hands each request to a transport (the site's worker, where the
//     recipe's app answers in-process at that virtual time) and holds it until the next Step.
// One step is one request: it releases the request that waits (or opens the page), lets htmx
// swap the answer, then runs the timers until htmx sends the next request. The reader's
// scripted clicks ([demo] actions) are timers of the page too (scheduleActions). The run ends
// when nothing is left to do, or when the next timer lies beyond the recipe's window; Python
// then writes the line that says how it ended.

const MAX_STEPS = 500;

// The app ended the run from its side: the reader's edited app.py failed (or ran past its
// budget). `answer`: {lines, outcome, message, error} from Python.
class RunEnded extends Error {
  constructor(answer) {
    super(answer.message);
    this.answer = answer;
  }
}

// The reader's scripted clicks ([demo] actions, each {click: selector, at: seconds}), set on
// the page's own timers once htmx has started (call it on DOMContentLoaded). In the demo
// those timers are virtual, so a click at 3 s comes at virtual time 3; the real replay
// (scripts/site/replay/real.py) runs this same function, taken from this file, in a real
// page, on real timers. Self-contained on purpose: the replay injects its source.
export function scheduleActions(win, actions, onNote) {
  for (const action of actions) {
    win.setTimeout(() => {
      const element = win.document.querySelector(action.click);
      if (element) element.click();
      else onNote(`The demo found nothing to click for “${action.click}”.`);
    }, action.at * 1000);
  }
}

function toBase64(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

function fromBase64(text) {
  const raw = atob(text || "");
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i += 1) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

// A real macrotask: whatever htmx queued as microtasks has run when this resolves.
function settle() {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve();
    channel.port2.postMessage(null);
  });
}

// Let the browser encode a body exactly as it would send it (FormData, URLSearchParams, text).
async function encodeBody(body, headers) {
  if (body == null) return null;
  const request = new Request(location.href, { method: "POST", body });
  const type = request.headers.get("content-type");
  if (type && !headers.some(([name]) => name.toLowerCase() === "content-type")) {
    headers.push(["Content-Type", type]);
  }
  return new Uint8Array(await request.arrayBuffer());
}

function headerOf(answer, name) {
  const key = name.toLowerCase();
  const values = (answer?.headers || []).filter(([k]) => k.toLowerCase() === key);
  return values.length ? values.map(([, v]) => v).join(", ") : null;
}

// The page's timers, on virtual milliseconds. Equal times run in the order they were set.
class VirtualTimers {
  constructor() {
    this.now = 0;
    this.pending = new Map();
    this.nextId = 1;
  }

  add(fn, ms, args, repeat) {
    if (typeof fn !== "function") throw new TypeError("the demo panel runs no code given as text");
    const id = this.nextId++;
    const delay = Math.max(0, Number(ms) || 0);
    this.pending.set(id, { id, fn, args, at: this.now + delay, every: repeat ? Math.max(1, delay) : 0 });
    return id;
  }

  clear(id) {
    this.pending.delete(id);
  }

  earliest() {
    let best = null;
    for (const timer of this.pending.values()) {
      if (!best || timer.at < best.at || (timer.at === best.at && timer.id < best.id)) best = timer;
    }
    return best;
  }

  fire(timer) {
    this.now = Math.max(this.now, timer.at);
    if (timer.every) timer.at += timer.every;
    else this.pending.delete(timer.id);
    timer.fn(...timer.args);
  }

  install(win) {
    win.setTimeout = (fn, ms, ...args) => this.add(fn, ms, args, false);
    win.setInterval = (fn, ms, ...args) => this.add(fn, ms, args, true);
    win.clearTimeout = (id) => this.clear(id);
    win.clearInterval = (id) => this.clear(id);
  }
}

// An XMLHttpRequest for the page: what htmx 2 uses of it, and nothing goes to the network.
function demoXMLHttpRequest(win, panel) {
  return class DemoXMLHttpRequest extends EventTarget {
    static UNSENT = 0;
    static OPENED = 1;
    static HEADERS_RECEIVED = 2;
    static LOADING = 3;
    static DONE = 4;

    constructor() {
      super();
      this.upload = new EventTarget();
      this.readyState = 0;
      this.status = 0;
      this.statusText = "";
      this.response = "";
      this.responseText = "";
      this.responseURL = "";
      this.responseType = "";
      this.timeout = 0;
      this.withCredentials = false;
      for (const name of ["abort", "error", "load", "loadend", "loadstart", "progress", "readystatechange", "timeout"]) {
        this[`on${name}`] = null;
      }
      this.request = null;
      this.answer = null;
    }

    open(method, url) {
      this.request = { method: String(method).toUpperCase(), url: new URL(url, win.location.href), headers: [] };
      this.answer = null;
      this.changeState(1);
    }

    setRequestHeader(name, value) {
      if (this.readyState !== 1) throw new DOMException("setRequestHeader() needs open() first", "InvalidStateError");
      this.request.headers.push([String(name), String(value)]);
    }

    overrideMimeType() {}

    send(body = null) {
      if (this.readyState !== 1) throw new DOMException("send() needs open() first", "InvalidStateError");
      const bodyless = this.request.method === "GET" || this.request.method === "HEAD";
      this.request.body = bodyless ? null : body;
      this.fire("loadstart", this);
      if (this.request.body != null) this.fire("loadstart", this.upload);
      panel.hold(this);
    }

    abort() {
      if (!panel.drop(this)) return;
      this.fire("abort", this);
      this.fire("loadend", this);
      this.readyState = 0;
    }

    getResponseHeader(name) {
      return headerOf(this.answer, name);
    }

    getAllResponseHeaders() {
      return (this.answer?.headers || []).map(([k, v]) => `${k.toLowerCase()}: ${v}\r\n`).join("");
    }

    // the panel calls these
    deliver(answer) {
      this.answer = answer;
      this.status = answer.status;
      this.statusText = answer.reason || "";
      this.responseURL = new URL(answer.url, win.location.href).href;
      this.responseText = this.response = new TextDecoder().decode(answer.bytes);
      this.changeState(2);
      this.changeState(3);
      this.changeState(4);
      if (this.request.body != null) {
        for (const name of ["progress", "load", "loadend"]) this.fire(name, this.upload);
      }
      for (const name of ["progress", "load", "loadend"]) this.fire(name, this);
    }

    fail() {
      this.status = 0;
      this.changeState(4);
      this.fire("error", this);
      this.fire("loadend", this);
    }

    changeState(state) {
      this.readyState = state;
      this.fire("readystatechange", this);
    }

    fire(type, target) {
      const event = new win.ProgressEvent(type, { lengthComputable: false, loaded: 0, total: 0 });
      const handler = target[`on${type}`];
      if (typeof handler === "function") handler.call(target, event);
      target.dispatchEvent(event);
    }
  };
}

export class DemoPanel {
  // container: the element the iframe goes in; transport: {open, request, end} (see
  // workerTransport); onNote(text): tell the reader something (the widget's status line).
  constructor({ container, transport, onNote = () => {} }) {
    this.container = container;
    this.transport = transport;
    this.onNote = onNote;
    this.fresh();
  }

  fresh() {
    this.frame = null;
    this.settings = null;
    this.timers = new VirtualTimers();
    this.held = [];
    this.blobs = [];
    this.finished = null;
  }

  get windowMs() {
    return this.settings.window * 1000;
  }

  // --- what htmx's requests do (DemoXMLHttpRequest calls these) ---------------------------
  hold(xhr) {
    if (xhr.request.url.origin !== location.origin) {
      queueMicrotask(() => xhr.fail()); // never leaves the site (htmx refuses it anyway)
      return;
    }
    this.held.push(xhr);
  }

  drop(xhr) {
    const at = this.held.indexOf(xhr);
    if (at >= 0) this.held.splice(at, 1);
    return at >= 0;
  }

  // --- one request through the transport, at the current virtual time --------------------
  async send(method, url, headers = [], body = null) {
    const answer = await this.transport.request({
      method,
      url,
      headers,
      body: body ? toBase64(body) : null,
      t: this.timers.now / 1000,
    });
    if (answer.outcome) throw new RunEnded(answer);
    return { ...answer, bytes: fromBase64(answer.body) };
  }

  async deliver(xhr, lines) {
    const { method, url, headers } = xhr.request;
    const body = await encodeBody(xhr.request.body, headers);
    const answer = await this.send(method, url.pathname + url.search, headers, body);
    lines.push(...answer.lines);
    try {
      xhr.deliver(answer); // htmx swaps it here, as it does on a real answer
    } catch (error) {
      this.onNote(`The page failed on the answer to ${method} ${url.pathname}: ${error.message}`);
    }
    await settle();
  }

  // --- step 1: the app's page, with its own stylesheet and scripts ------------------------
  async open(lines) {
    this.settings = await this.transport.open();
    if (this.settings.outcome) throw new RunEnded(this.settings);
    const page = await this.send("GET", this.settings.page, [["Accept", "text/html"]]);
    lines.push(...page.lines);
    const doc = new DOMParser().parseFromString(new TextDecoder().decode(page.bytes), "text/html");
    await this.inlineSubresources(doc);
    const frame = document.createElement("iframe");
    frame.className = "tryit__frame";
    frame.title = `Demo app: ${this.settings.title}`;
    this.container.classList.add("tryit__panel--app");
    this.container.replaceChildren(frame);
    this.container.hidden = false;
    this.frame = frame;
    const win = frame.contentWindow;
    // installed before the document is written: document.open() keeps the window object
    this.timers.install(win);
    win.XMLHttpRequest = demoXMLHttpRequest(win, this);
    const written = frame.contentDocument;
    const loaded = new Promise((resolve) => {
      written.open(); // (this drops the window's listeners: add them after it)
      const actions = this.settings.actions || [];
      win.addEventListener("DOMContentLoaded", () => scheduleActions(win, actions, this.onNote), {
        once: true,
      });
      written.write(`<!DOCTYPE html>${doc.documentElement.outerHTML}`);
      written.close();
      // Its deferred scripts (htmx, hedron.js) run after this, then htmx starts on
      // DOMContentLoaded, then the window loads (readyState already says "complete" here).
      win.addEventListener("load", resolve, { once: true });
    });
    await loaded;
    this.keepInert(win);
    this.followHeight(win);
  }

  // The stylesheet, htmx and hedron.js the page names, fetched from the app (as the browser
  // would; they are not transcript lines) and handed to the document as blob URLs.
  async inlineSubresources(doc) {
    for (const element of doc.querySelectorAll("link[href], script[src], img[src]")) {
      const name = element.hasAttribute("src") ? "src" : "href";
      const url = new URL(element.getAttribute(name), location.href);
      if (url.origin !== location.origin) {
        element.removeAttribute(name);
        continue;
      }
      const answer = await this.send("GET", url.pathname + url.search);
      if (answer.status !== 200) {
        element.removeAttribute(name);
        continue;
      }
      const type = headerOf(answer, "content-type") || "application/octet-stream";
      const blob = URL.createObjectURL(new Blob([answer.bytes], { type }));
      this.blobs.push(blob);
      element.setAttribute(name, blob);
    }
  }

  // Links and forms htmx does not handle would navigate the iframe away: keep it on its page.
  keepInert(win) {
    const refuse = (event, what) => {
      if (event.defaultPrevented) return; // htmx handled it
      event.preventDefault();
      this.onNote(`The demo app stays on its page: ${what} would leave it.`);
    };
    win.addEventListener("click", (event) => {
      const link = event.target instanceof win.Element ? event.target.closest("a[href]") : null;
      if (link) refuse(event, `the link “${link.textContent.trim() || link.href}”`);
    });
    win.addEventListener("submit", (event) => refuse(event, "this form"));
  }

  followHeight(win) {
    const root = win.document.documentElement;
    const fit = () => {
      this.frame.style.height = `${Math.ceil(root.getBoundingClientRect().height)}px`;
    };
    this.observer = new win.ResizeObserver(fit);
    this.observer.observe(root);
    fit();
  }

  // Run the page's timers in time order until htmx sends a request (held for the next step).
  async runTimers() {
    while (!this.held.length) {
      const timer = this.timers.earliest();
      if (!timer) return "idle";
      if (timer.at > this.windowMs) return "window";
      try {
        this.timers.fire(timer);
      } catch (error) {
        this.onNote(`The page's code failed: ${error.message}`);
      }
      await settle();
    }
    return "held";
  }

  async step() {
    if (this.finished) return { ...this.finished, lines: [] };
    const lines = [];
    try {
      return await this.stepOn(lines);
    } catch (error) {
      if (!(error instanceof RunEnded)) throw error;
      const { outcome, message, error: why } = error.answer;
      this.finished = { swaps: [], done: true, outcome, message, error: why };
      return { ...this.finished, lines: [...lines, ...error.answer.lines] };
    }
  }

  async stepOn(lines) {
    if (!this.frame) await this.open(lines);
    else if (this.held.length || (await this.runTimers()) === "held") {
      await this.deliver(this.held.shift(), lines);
    }
    // then on to the next request (held for the next step)
    const how = await this.runTimers();
    if ((how === "idle" || how === "window") && !this.held.length) {
      const end = await this.transport.end(how);
      lines.push(...end.lines);
      this.finished = { swaps: [], done: true, outcome: end.outcome, message: end.message };
      return { ...this.finished, lines };
    }
    return { lines, swaps: [], done: false, outcome: null, message: "" };
  }

  async run() {
    const lines = [];
    for (let i = 0; i < MAX_STEPS; i += 1) {
      const result = await this.step();
      lines.push(...result.lines);
      if (result.done) return { ...result, lines };
    }
    throw new Error(`the demo did not end within ${MAX_STEPS} steps`);
  }

  reset() {
    this.observer?.disconnect();
    this.frame?.remove();
    for (const url of this.blobs) URL.revokeObjectURL(url);
    this.container.classList.remove("tryit__panel--app");
    this.fresh();
  }
}

// The site's transport: the widget's worker, where tryit.browser.handle plays the server.
// codeOf(): the reader's edited files ({name: text}) the app loads, or null: the recipe's.
export function workerTransport(send, recipe, session, codeOf = () => null) {
  const call = async (message) => (await send({ ...message, recipe, session })).result;
  return {
    open: () => call({ action: "open", code: codeOf() || undefined }),
    request: (request) => call({ action: "request", ...request }),
    end: (how) => call({ action: "end", how }),
  };
}
