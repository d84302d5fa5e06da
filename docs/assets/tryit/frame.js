// @ts-check
// The hedron demo panel's frame: the driver that runs INSIDE the panel's sandboxed iframe
// (frame.html; panel.mjs makes the frame and talks to this script through a MessageChannel).
//
// The frame is sandboxed without allow-same-origin: its origin is opaque, so nothing in it
// can read or write the site's page, storage or cookies, or navigate the reader's tab, and its
// Content-Security-Policy lets only the site's own scripts run (this one, then htmx and
// hedron.js by their exact URLs in the document panel.mjs writes in). A plain script, not a
// module: a module would be a CORS request from the opaque origin, which a static host need
// not answer.
//
// Nothing here decides which request htmx sends or how it swaps the answer: htmx does, in the
// app's real document (its htmx config, its CSRF header, its stylesheet, hedron.js). The driver
// gives that page two things instead of the network and the wall clock:
//   - a virtual clock: setTimeout/setInterval run when the driver moves virtual time on, in
//     time order (htmx's polls and settle delays are timers);
//   - an XMLHttpRequest that asks the panel for each answer (the site's worker, where the
//     recipe's app answers in-process at that virtual time) and holds it until the next Step.
// One step is one request: the panel says "step"; the driver releases the request that waits,
// lets htmx swap the answer, then runs the timers until htmx sends the next request, and says
// where it paused. The reader's scripted clicks ([demo] actions) are timers of the page too.
//
// Messages to the panel: {kind: "opened"}, {kind: "request", id, method, url, headers, body, t},
// {kind: "paused", how, held}, {kind: "note", text}, {kind: "height", px}. From the panel:
// {kind: "open", html, actions, window, palette} (with the port, on the window), {kind: "step",
// deliver}, {kind: "answer", id, status, reason, url, headers, body}, {kind: "palette", scheme}.
// The palette ("light" or "dark": the site's, which the reader may toggle at any time) is set
// as data-theme on the page's <html>, which hedron's stylesheet follows.
"use strict";

/**
 * @typedef {[string, string]} Header
 * @typedef {{ click: string, at: number }} Action
 * @typedef {{ kind: "answer", id: number, status: number, reason: string, url: string, headers: Header[], body: Uint8Array }} Answer
 * @typedef {{ kind: "open", html: string, actions: Action[], window: number, palette: string }
 *   | { kind: "step", deliver: boolean }
 *   | { kind: "palette", scheme: string }
 *   | Answer
 * } PanelMessage what the panel (panel.mjs) sends
 * @typedef {{ id: number, fn: Function, args: unknown[], at: number, every: number }} Timer
 * @typedef {{ method: string, url: URL, headers: Header[], body?: BodyInit | null }} Opened a request open() made
 */

// The reader's scripted clicks ([demo] actions, each {click: selector, at: seconds}), set on
// the page's own timers once htmx has started (call it on DOMContentLoaded). In the demo
// those timers are virtual, so a click at 3 s comes at virtual time 3; the real replay
// (docsite/replay/real.py) runs this same function, its source taken from this file, in
// a real page, on real timers. Self-contained on purpose: the replay injects its source.
/** @param {Window} win @param {Action[]} actions @param {(text: string) => void} onNote */
function scheduleActions(win, actions, onNote) {
  for (const action of actions) {
    win.setTimeout(() => {
      const element = /** @type {HTMLElement | null} */ (win.document.querySelector(action.click));
      if (element) element.click();
      else onNote(`The demo found nothing to click for “${action.click}”.`);
    }, action.at * 1000);
  }
}

(() => {
  if (window.parent === window) return; // only as the panel's frame (the replay reads the above)

  // A real macrotask: whatever htmx queued as microtasks has run when this resolves.
  /** @returns {Promise<void>} */
  function settle() {
    return new Promise((resolve) => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => resolve();
      channel.port2.postMessage(null);
    });
  }

  // Let the browser encode a body exactly as it would send it (FormData, URLSearchParams, text).
  /** @param {BodyInit | null | undefined} body @param {Header[]} headers */
  async function encodeBody(body, headers) {
    if (body == null) return null;
    const request = new Request(location.href, { method: "POST", body });
    const type = request.headers.get("content-type");
    if (type && !headers.some(([name]) => name.toLowerCase() === "content-type")) {
      headers.push(["Content-Type", type]);
    }
    return new Uint8Array(await request.arrayBuffer());
  }

  /** @param {Answer | null} answer @param {string} name */
  function headerOf(answer, name) {
    const key = name.toLowerCase();
    const values = (answer?.headers || []).filter(([k]) => k.toLowerCase() === key);
    return values.length ? values.map(([, v]) => v).join(", ") : null;
  }

  // Live regions of the app's page (hedron's status messages are `role="status"`) would
  // announce every step a second time: the widget's own live region already says what changed.
  /** @param {ParentNode} root */
  function quietLiveRegions(root) {
    const live = '[aria-live], [role="status"], [role="alert"], [role="log"], [role="timer"]';
    for (const node of root.querySelectorAll(live)) node.setAttribute("aria-live", "off");
  }

  // The page's timers, on virtual milliseconds. Equal times run in the order they were set.
  class VirtualTimers {
    constructor() {
      this.now = 0;
      /** @type {Map<number, Timer>} */
      this.pending = new Map();
      this.nextId = 1;
    }

    /** @param {unknown} fn @param {unknown} ms @param {unknown[]} args @param {boolean} repeat */
    add(fn, ms, args, repeat) {
      if (typeof fn !== "function") throw new TypeError("the demo panel runs no code given as text");
      const id = this.nextId++;
      const delay = Math.max(0, Number(ms) || 0);
      this.pending.set(id, { id, fn, args, at: this.now + delay, every: repeat ? Math.max(1, delay) : 0 });
      return id;
    }

    /** @param {number | undefined} id */
    clear(id) {
      this.pending.delete(/** @type {number} */ (id));
    }

    earliest() {
      /** @type {Timer | null} */
      let best = null;
      for (const timer of this.pending.values()) {
        if (!best || timer.at < best.at || (timer.at === best.at && timer.id < best.id)) best = timer;
      }
      return best;
    }

    /** @param {Timer} timer */
    fire(timer) {
      this.now = Math.max(this.now, timer.at);
      if (timer.every) timer.at += timer.every;
      else this.pending.delete(timer.id);
      timer.fn(...timer.args);
    }

    /** @param {Window} win */
    install(win) {
      win.setTimeout = (fn, ms, ...args) => this.add(fn, ms, args, false);
      win.setInterval = (fn, ms, ...args) => this.add(fn, ms, args, true);
      win.clearTimeout = (id) => this.clear(id);
      win.clearInterval = (id) => this.clear(id);
    }
  }

  const timers = new VirtualTimers();
  /** @type {DemoXMLHttpRequest[]} */
  const held = []; // htmx's requests, each waiting for its step
  /** @type {Map<number, (answer: Answer) => void>} */
  const asked = new Map(); // id -> resolve: the requests the panel has not answered yet
  let nextAsk = 1;
  /** @type {MessagePort | null} */
  let port = null;
  let windowMs = 0;
  let scheme = "light";

  // The site's palette on the page (its <html>: a new one once the page is written).
  /** @param {unknown} wanted */
  function paint(wanted) {
    scheme = wanted === "dark" ? "dark" : "light";
    document.documentElement?.setAttribute("data-theme", scheme);
  }

  /** @param {object} message */
  const post = (message) => /** @type {MessagePort} set before anything posts */ (port).postMessage(message);
  /** @param {unknown} text */
  const note = (text) => post({ kind: "note", text: String(text) });

  // An XMLHttpRequest for the page: what htmx 2 uses of it, and nothing goes to the network.
  class DemoXMLHttpRequest extends EventTarget {
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
        /** @type {any} */ (this)[`on${name}`] = null;
      }
      /** @type {Opened | null} */
      this.request = null;
      /** @type {Answer | null} */
      this.answer = null;
    }

    /** @param {string} method @param {string | URL} url */
    open(method, url) {
      this.request = { method: String(method).toUpperCase(), url: new URL(url, location.href), headers: [] };
      this.answer = null;
      this.changeState(1);
    }

    /** @param {string} name @param {string} value */
    setRequestHeader(name, value) {
      if (this.readyState !== 1) throw new DOMException("setRequestHeader() needs open() first", "InvalidStateError");
      /** @type {Opened} */ (this.request).headers.push([String(name), String(value)]);
    }

    overrideMimeType() {}

    /** @param {BodyInit | null} [body] */
    send(body = null) {
      if (this.readyState !== 1) throw new DOMException("send() needs open() first", "InvalidStateError");
      const request = /** @type {Opened} */ (this.request);
      const bodyless = request.method === "GET" || request.method === "HEAD";
      request.body = bodyless ? null : body;
      this.fire("loadstart", this);
      if (request.body != null) this.fire("loadstart", this.upload);
      if (request.url.origin !== location.origin) {
        queueMicrotask(() => this.fail()); // never leaves the site (htmx refuses it anyway)
        return;
      }
      held.push(this);
    }

    abort() {
      const at = held.indexOf(this);
      if (at < 0) return;
      held.splice(at, 1);
      this.fire("abort", this);
      this.fire("loadend", this);
      this.readyState = 0;
    }

    /** @param {string} name */
    getResponseHeader(name) {
      return headerOf(this.answer, name);
    }

    getAllResponseHeaders() {
      return (this.answer?.headers || []).map(([k, v]) => `${k.toLowerCase()}: ${v}\r\n`).join("");
    }

    // the driver calls these
    /** @param {Answer} answer */
    deliver(answer) {
      this.answer = answer;
      this.status = answer.status;
      this.statusText = answer.reason || "";
      this.responseURL = new URL(answer.url, location.href).href;
      this.responseText = this.response = new TextDecoder().decode(answer.body);
      this.changeState(2);
      this.changeState(3);
      this.changeState(4);
      if (/** @type {Opened} */ (this.request).body != null) {
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

    /** @param {number} state */
    changeState(state) {
      this.readyState = state;
      this.fire("readystatechange", this);
    }

    /** @param {string} type @param {EventTarget} target */
    fire(type, target) {
      const event = new ProgressEvent(type, { lengthComputable: false, loaded: 0, total: 0 });
      const handler = /** @type {any} */ (target)[`on${type}`];
      if (typeof handler === "function") handler.call(target, event);
      target.dispatchEvent(event);
    }
  }

  // One request through the panel (which asks the worker), at the current virtual time.
  /**
   * @param {string} method @param {URL} url @param {Header[]} headers @param {Uint8Array | null} body
   * @returns {Promise<Answer>}
   */
  function ask(method, url, headers, body) {
    const id = nextAsk++;
    return new Promise((resolve) => {
      asked.set(id, resolve);
      const t = timers.now / 1000;
      post({ kind: "request", id, method, url: url.pathname + url.search, headers, body, t });
    });
  }

  /** @param {DemoXMLHttpRequest} xhr */
  async function deliver(xhr) {
    const { method, url, headers } = /** @type {Opened} it was sent */ (xhr.request);
    const body = await encodeBody(/** @type {Opened} */ (xhr.request).body, headers);
    const answer = await ask(method, url, headers, body);
    try {
      xhr.deliver(answer); // htmx swaps it here, as it does on a real answer
    } catch (error) {
      note(`The page failed on the answer to ${method} ${url.pathname}: ${error.message}`);
    }
    await settle();
  }

  // Run the page's timers in time order until htmx sends a request (held for the next step).
  async function runTimers() {
    while (!held.length) {
      const timer = timers.earliest();
      if (!timer) return "idle";
      if (timer.at > windowMs) return "window";
      try {
        timers.fire(timer);
      } catch (error) {
        note(`The page's code failed: ${error.message}`);
      }
      await settle();
    }
    return "held";
  }

  /** @param {boolean} deliverNext */
  async function step(deliverNext) {
    if (deliverNext && (held.length || (await runTimers()) === "held")) await deliver(/** @type {DemoXMLHttpRequest} */ (held.shift()));
    const how = await runTimers(); // then on to the next request (held for the next step)
    quietLiveRegions(document);
    post({ kind: "paused", how, held: held.length });
  }

  // Links and forms htmx does not handle would navigate the frame away: keep it on its page.
  // (The sandbox keeps them from the reader's tab, the policy from any other site.)
  function keepInert() {
    /** @param {Event} event @param {string} what */
    const refuse = (event, what) => {
      if (event.defaultPrevented) return; // htmx handled it
      event.preventDefault();
      note(`The demo app stays on its page: ${what} would leave it.`);
    };
    /** @param {MouseEvent} event */
    const follow = (event) => {
      const link = /** @type {HTMLAnchorElement | HTMLAreaElement | null} */ (
        event.target instanceof Element ? event.target.closest("a[href], area[href]") : null
      );
      if (link) refuse(event, `the link “${link.textContent.trim() || link.href}”`);
    };
    addEventListener("click", follow);
    addEventListener("auxclick", follow); // the middle button: a new tab
    addEventListener("submit", (event) => refuse(event, "this form"));
  }

  function followHeight() {
    const root = document.documentElement;
    const fit = () => post({ kind: "height", px: Math.ceil(root.getBoundingClientRect().height) });
    new ResizeObserver(fit).observe(root);
    fit();
  }

  // Step 1: the app's page (panel.mjs has put in its stylesheet, its policy and the site's
  // scripts) written into this document, which keeps this window and so its timers and XHR.
  /** @param {Extract<PanelMessage, { kind: "open" }>} message */
  async function open({ html, actions, window: seconds, palette }) {
    windowMs = seconds * 1000;
    paint(palette);
    timers.install(window);
    window.XMLHttpRequest = /** @type {typeof XMLHttpRequest} what htmx uses of it */ (/** @type {unknown} */ (DemoXMLHttpRequest));
    await new Promise((resolve) => {
      document.open(); // (this drops the window's listeners: add them after it)
      addEventListener("DOMContentLoaded", () => scheduleActions(window, actions, note), { once: true });
      // htmx and hedron.js run after this (deferred), then htmx starts on DOMContentLoaded,
      // then the window loads
      addEventListener("load", resolve, { once: true });
      document.write(html);
      paint(scheme);
      document.close();
    });
    keepInert();
    followHeight();
    quietLiveRegions(document);
    post({ kind: "opened" });
  }

  /** @param {PanelMessage} message */
  function receive(message) {
    if (message.kind === "open") open(message);
    else if (message.kind === "step") step(message.deliver === true);
    else if (message.kind === "palette") paint(message.scheme);
    else if (message.kind === "answer") {
      const resolve = asked.get(message.id);
      asked.delete(message.id);
      resolve?.(message);
    }
  }

  // The panel's port comes once, from the page that made this frame, with the first message.
  addEventListener("message", function take(event) {
    if (port || event.source !== window.parent || !event.ports.length) return;
    removeEventListener("message", take);
    port = event.ports[0];
    port.onmessage = ({ data }) => receive(data);
  });
})();
