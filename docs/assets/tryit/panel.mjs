// @ts-check
// The hedron demo panel: the recipe's own page, run by the real htmx in a sandboxed iframe.
//
// The app's page may be the reader's edited code, or someone else's through a share link, so
// it never runs with the site's origin. The frame (frame.html) is sandboxed with
// "allow-scripts allow-forms" only: its origin is opaque (it cannot reach the site's page,
// storage or cookies), it cannot navigate the reader's tab, open windows or dialogs, and its
// Content-Security-Policy lets only the site's own htmx and hedron.js run there (apppage.mjs
// writes the page for it). allow-forms is there because htmx sends forms on their submit
// event, which a sandbox without it never fires; the policy's form-action 'none' keeps a
// form from being sent anywhere by the browser itself. This page also lets its frames load
// frame.html alone, so a page in the frame that tries to go anywhere else is stopped.
//
// The virtual clock and the XMLHttpRequest that holds each request until the next Step run
// inside the frame (frame.js). This side asks the worker for the demo's settings and the
// app's page, writes the page into the frame, and then steps it through a MessageChannel:
// each request htmx sends in the frame comes here, goes to the worker (where the recipe's app
// answers in-process at that virtual time) and its answer goes back. Every message from the
// frame is untrusted data (checks.mjs): a message of the wrong shape or one it had no reason
// to send, too many of them, silence, or a navigation of the frame ends the run. The run ends
// when nothing is left to do, or when the next timer lies beyond the recipe's window; Python
// then writes the line that says how it ended.

import { preparePage } from "./apppage.mjs";
import { checkAnswer, checkEnd, checkFrameMessage, checkSettings, Refused, shortNote } from "./checks.mjs";
import { siteScheme, watchScheme } from "./palette.mjs";

/** @import { End, FrameMessage, Header } from "./checks.mjs" */
/**
 * @typedef {{ open(): Promise<any>, request(request: object): Promise<any>, end(how: string): Promise<any> }} Transport
 *   (what the worker answers is unchecked data: checkSettings, checkAnswer and checkEnd check it)
 * @typedef {Omit<End, "error"> & { error?: End["error"] }} Ended how a run ended (the frame stopped: no error)
 * @typedef {{ kind: string, lines: string[], resolve(message: FrameMessage): void, reject(error: Error): void }} Waiting
 * @typedef {ReturnType<typeof checkSettings>} Settings
 * @typedef {{ done: true, outcome: string, message: string, error: import("./checks.mjs").PythonError | null }} Finished
 */

const MAX_STEPS = 500;
const FRAME = new URL("frame.html", import.meta.url);
export const SANDBOX = "allow-scripts allow-forms";
const FRAME_MS = 20000; // the frame says nothing for this long while it should: it is stopped
const MAX_MESSAGES = 1000; // from the frame between two steps (a step needs a handful)
const MAX_NOTES = 20; // the frame's notes shown per step

// The run ended: the reader's edited app.py failed (or ran past its budget), or the frame was
// stopped. `answer`: {lines, outcome, message, error}.
class RunEnded extends Error {
  /** @param {Ended} answer */
  constructor(answer) {
    super(answer.message);
    this.answer = answer;
  }
}

/** @param {Uint8Array} bytes */
function toBase64(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

/** @param {string} text */
function fromBase64(text) {
  let raw;
  try {
    raw = atob(text);
  } catch {
    throw new Refused("body is not base64");
  }
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i += 1) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

/** @param {Header[]} headers @param {string} name */
const headerOf = (headers, name) => headers.find(([key]) => key.toLowerCase() === name)?.[1] ?? "";

// This page lets its frames load frame.html and nothing else: the browser then stops the
// panel's page wherever it tries to go (a refresh, a redirect htmx follows, a link), this
// site included. Once per page (a policy cannot be taken back; it asks nothing else of the
// page, which has no other frame).
let framesKept = false;
function keepFrames() {
  if (framesKept) return;
  framesKept = true;
  const policy = document.createElement("meta");
  policy.httpEquiv = "Content-Security-Policy";
  policy.content = `frame-src ${FRAME.href}`;
  document.head.append(policy);
}

export class DemoPanel {
  // container: the element the iframe goes in; transport: {open, request, end} (see
  // workerTransport); onNote(text): tell the reader something (the widget's status line).
  /** @param {{ container: HTMLElement, transport: Transport, onNote?: (text: string) => void }} options */
  constructor({ container, transport, onNote = () => {} }) {
    this.container = container;
    this.transport = transport;
    this.onNote = onNote;
    // (the types of what fresh() sets)
    /** @type {HTMLIFrameElement | null} */ this.frame;
    /** @type {MessagePort | null} */ this.port;
    /** @type {Settings | null} */ this.settings;
    /** @type {Finished | null} */ this.finished;
    /** @type {Ended | null} */ this.halted;
    /** @type {Waiting | null} */ this.waiting;
    /** @type {boolean} */ this.serving;
    /** @type {number} */ this.messages;
    /** @type {number} */ this.notes;
    /** @type {number} */ this.loads;
    /** @type {number} */ this.lastT;
    /** @type {number | null} */ this.silence;
    /** @type {(() => void) | null} */ this.unwatch;
    this.fresh();
  }

  fresh() {
    this.frame = null;
    this.port = null;
    this.settings = null;
    this.finished = null;
    this.halted = null; // the frame was stopped: the answer that says why
    this.waiting = null; // {kind, lines, resolve, reject}: what the frame is expected to say
    this.serving = false; // a request of the frame is with the worker
    this.messages = 0;
    this.notes = 0;
    this.loads = 0;
    this.lastT = 0;
    this.silence = null;
    this.unwatch = null; // stops passing the site's palette on to the frame
  }

  // --- the frame's messages: untrusted data ------------------------------------------------
  /** @param {unknown} data */
  receive(data) {
    if (this.halted) return;
    if (++this.messages > MAX_MESSAGES) return this.halt("it sent more messages than a run needs");
    let message;
    try {
      message = checkFrameMessage(data);
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      return this.halt(`it sent a message the panel does not accept (${error.message})`);
    }
    const { kind } = message;
    if (kind === "height") {
      /** @type {HTMLIFrameElement} its port is how it speaks */ (this.frame).style.height = `${Math.min(Math.ceil(message.px), 20000)}px`;
    } else if (kind === "note") {
      if (this.notes++ < MAX_NOTES) this.onNote(shortNote(message.text));
    } else if (!this.waiting || this.serving || (kind !== "request" && kind !== this.waiting.kind)) {
      this.halt(`it sent a message it had no reason to send (${kind})`);
    } else if (kind === "request") {
      if (this.waiting.kind !== "paused" || message.t < this.lastT || message.t > /** @type {Settings} */ (this.settings).window) {
        return this.halt("it sent a request out of its turn");
      }
      this.serve(message, this.waiting);
    } else {
      this.waiting.resolve(message);
    }
    if (this.waiting && !this.serving) this.listen();
  }

  // The frame is to say something within FRAME_MS (the worker's time does not count).
  listen() {
    clearTimeout(this.silence);
    this.silence = setTimeout(() => this.halt("it stopped answering"), FRAME_MS);
  }

  // Stop the frame for good: it misbehaved (or its page navigated away). The run ends.
  /** @param {string} why */
  halt(why) {
    if (this.halted) return;
    clearTimeout(this.silence);
    this.halted = { lines: [], outcome: "stopped", message: `the demo app's page was stopped: ${why}` };
    this.unwatch?.();
    this.port?.close();
    if (this.frame) this.frame.src = "about:blank";
    if (this.waiting) this.waiting.reject(new RunEnded(this.halted));
    else this.onNote(`The run ended: ${this.halted.message}.`);
  }

  // Ask the frame something and wait for its answer of `kind` (serving its requests meanwhile).
  /**
   * @template {FrameMessage["kind"]} Kind
   * @param {object} message @param {Kind} kind @param {string[]} lines
   * @returns {Promise<Extract<FrameMessage, { kind: Kind }>>}
   */
  exchange(message, kind, lines) {
    if (this.halted) return Promise.reject(new RunEnded(this.halted));
    this.messages = 0;
    this.notes = 0;
    const answered = new Promise((resolve, reject) => {
      this.waiting = { kind, lines, resolve, reject };
    });
    this.listen();
    /** @type {MessagePort} asked once opened */ (this.port).postMessage(message);
    return answered.finally(() => {
      this.waiting = null;
      clearTimeout(this.silence);
    });
  }

  // One request of the frame's htmx, through the worker; its answer back to the frame.
  /** @param {Extract<FrameMessage, { kind: "request" }>} request @param {Waiting} waiting */
  async serve({ id, method, url, headers, body, t }, waiting) {
    this.serving = true;
    clearTimeout(this.silence);
    this.lastT = t;
    try {
      const answer = await this.send(method, url, headers, body, t);
      waiting.lines.push(...answer.lines);
      if (this.halted || this.waiting !== waiting) return;
      const { status, reason, headers: answerHeaders, bytes } = answer;
      /** @type {MessagePort} */ (this.port).postMessage({ kind: "answer", id, status, reason, url: answer.url, headers: answerHeaders, body: bytes });
    } catch (error) {
      waiting.reject(error);
    } finally {
      this.serving = false;
      if (this.waiting === waiting && !this.halted) this.listen();
    }
  }

  // --- one request through the transport, at virtual time t (seconds) ---------------------
  /** @param {string} method @param {string} url @param {Header[]} [headers] @param {Uint8Array | null} [body] */
  async send(method, url, headers = [], body = null, t = 0) {
    const reply = await this.transport.request({
      method,
      url,
      headers,
      body: body ? toBase64(body) : null,
      t,
    });
    if (reply?.outcome) throw new RunEnded(checkEnd(reply));
    const answer = checkAnswer(reply);
    return { ...answer, bytes: fromBase64(answer.body) };
  }

  // --- step 1: the app's page, with its own stylesheet, in the frame ---------------------
  /** @param {string[]} lines */
  async open(lines) {
    const opened = await this.transport.open();
    if (opened?.outcome) throw new RunEnded(checkEnd(opened));
    this.settings = checkSettings(opened);
    const page = await this.send("GET", this.settings.page, [["Accept", "text/html"]]);
    lines.push(...page.lines);
    /** @param {string} path */
    const fetchApp = async (path) => {
      const answer = await this.send("GET", path);
      return { status: answer.status, type: headerOf(answer.headers, "content-type"), bytes: answer.bytes };
    };
    const { html, left } = await preparePage(page.bytes, FRAME, fetchApp);
    if (left) {
      const what = left === 1 ? "one script" : `${left} scripts`;
      this.onNote(`The demo runs only the site's own htmx and hedron.js: ${what} of the page left out.`);
    }
    keepFrames();
    const frame = document.createElement("iframe");
    frame.className = "tryit__frame";
    frame.title = `Demo app: ${this.settings.title}`;
    frame.setAttribute("sandbox", SANDBOX);
    frame.src = FRAME.href;
    this.container.classList.add("tryit__panel--app");
    this.container.replaceChildren(frame);
    this.container.hidden = false;
    this.frame = frame;
    await new Promise((resolve) => frame.addEventListener("load", resolve, { once: true }));
    // After frame.html, its written document loads once; any other load is a navigation.
    frame.addEventListener("load", () => {
      this.loads += 1;
      if (this.loads > 1) this.halt("it tried to leave the panel");
    });
    const channel = new MessageChannel();
    this.port = channel.port1;
    this.port.onmessage = ({ data }) => this.receive(data);
    /** @type {Window} loaded */ (frame.contentWindow).postMessage({ kind: "panel" }, "*", [channel.port2]);
    // the page is drawn in the site's palette, and follows the reader's toggle
    const port = this.port;
    this.unwatch = watchScheme((scheme) => port.postMessage({ kind: "palette", scheme }));
    const { actions, window } = this.settings;
    await this.exchange({ kind: "open", html, actions, window, palette: siteScheme() }, "opened", lines);
  }

  async step() {
    if (this.finished) return { ...this.finished, lines: [] };
    /** @type {string[]} */
    const lines = [];
    try {
      return await this.stepOn(lines);
    } catch (error) {
      if (!(error instanceof RunEnded)) throw error;
      const { outcome, message, error: why } = error.answer;
      this.finished = { done: true, outcome, message, error: why ?? null };
      return { ...this.finished, lines: [...lines, ...error.answer.lines] };
    }
  }

  /** @param {string[]} lines */
  async stepOn(lines) {
    const first = !this.frame;
    if (first) await this.open(lines);
    // the frame delivers the request that waits (not on the first step: the page was it),
    // then runs its timers on to the next request, held for the next step
    const paused = await this.exchange({ kind: "step", deliver: !first }, "paused", lines);
    if (paused.how !== "held" && !paused.held) {
      const end = checkEnd(await this.transport.end(paused.how));
      lines.push(...end.lines);
      this.finished = { done: true, outcome: end.outcome, message: end.message, error: null };
      return { ...this.finished, lines };
    }
    return { lines, done: false, outcome: null, message: "", error: null };
  }

  async run() {
    /** @type {string[]} */
    const lines = [];
    for (let i = 0; i < MAX_STEPS; i += 1) {
      const result = await this.step();
      lines.push(...result.lines);
      if (result.done) return { ...result, lines };
    }
    throw new Error(`the demo did not end within ${MAX_STEPS} steps`);
  }

  reset() {
    clearTimeout(this.silence);
    this.unwatch?.();
    this.port?.close(); // nothing more from it
    this.frame?.remove();
    this.container.classList.remove("tryit__panel--app");
    this.fresh();
  }
}

// The site's transport: the widget's worker, where tryit.browser.handle plays the server.
// codeOf(): the reader's edited files ({name: text}) the app loads, or null: the recipe's.
/**
 * @param {(message: object) => Promise<{ result: unknown }>} send
 * @param {string} recipe @param {string} session
 * @param {() => Record<string, string> | null} [codeOf]
 * @returns {Transport}
 */
export function workerTransport(send, recipe, session, codeOf = () => null) {
  /** @param {object} message */
  const call = async (message) => (await send({ ...message, recipe, session })).result;
  return {
    open: () => call({ action: "open", code: codeOf() || undefined }),
    request: (request) => call({ action: "request", ...request }),
    end: (how) => call({ action: "end", how }),
  };
}
