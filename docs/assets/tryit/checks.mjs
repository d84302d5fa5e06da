// @ts-check
// What the page accepts from the two sides of "Try it" that the reader's edited code can
// speak through: the Web Worker (edited Python runs there, and can post any message it
// likes) and the hedron demo panel's sandboxed frame. Everything from them is data, checked
// here for its shape, types and sizes before the page uses it; the page then shows it as text
// only (textContent), never as markup. A message that fails is refused whole (Refused).

export class Refused extends Error {}

/**
 * @typedef {[string, string]} Header a header's name and value
 * @typedef {{ traceback: string, message: string, file: string | null, line: number | null }} PythonError
 * @typedef {{ lines: string[], outcome: string, message: string, error: PythonError | null }} End
 * @typedef {{ kind: "opened" }
 *   | { kind: "height", px: number }
 *   | { kind: "note", text: string }
 *   | { kind: "paused", how: string, held: number }
 *   | { kind: "request", id: number, method: string, url: string, headers: Header[], body: Uint8Array | null, t: number }
 * } FrameMessage
 * @typedef {{ kind: "progress", stage: string, bytes: number, done: number | null, busy: boolean }
 *   | { kind: "ready", ms: number, bytes: number, [field: string]: unknown }
 *   | { kind: "failed", reason: string }
 *   | { kind: "saved", ok: boolean }
 *   | { kind: "kept", files: number }
 *   | { kind: "reply", id: number, result: unknown, ms: number, error: string | null }
 * } WorkerMessage
 */

export const LIMITS = {
  lines: 20000, // transcript lines in one answer
  line: 10000, // characters in one line
  text: 1 << 20, // characters of a response body or a traceback
  word: 2000, // characters of a message, a title, a reason
  headers: 200,
  header: 16384,
  body: 8 << 20, // bytes of a request or an answer body
  actions: 100,
  note: 300, // characters of a note from the frame the reader is shown
};

/** @param {unknown} value @returns {value is Record<string, any>} */
const isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);

/** @param {unknown} value @param {string} what */
function object(value, what) {
  if (!isObject(value)) throw new Refused(`${what} is not an object`);
  return value;
}

/** @param {unknown} value @param {number} max @param {string} what @returns {string} */
export function text(value, max, what) {
  if (typeof value !== "string") throw new Refused(`${what} is not a string`);
  if (value.length > max) throw new Refused(`${what} is longer than ${max} characters`);
  return value;
}

/** @param {unknown} value @param {number} max @param {string} what */
const optionalText = (value, max, what) => (value == null ? null : text(value, max, what));

/** @param {unknown} value @param {number} min @param {number} max @param {string} what @returns {number} */
export function number(value, min, max, what) {
  if (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max) {
    throw new Refused(`${what} is not a number from ${min} to ${max}`);
  }
  return value;
}

/** @param {unknown} value @param {number} min @param {number} max @param {string} what */
function integer(value, min, max, what) {
  if (!Number.isInteger(number(value, min, max, what))) throw new Refused(`${what} is not an integer`);
  return /** @type {number} */ (value);
}

/**
 * @template T
 * @param {unknown} value @param {number} max @param {string} what
 * @param {(item: unknown, what: string) => T} each
 */
function list(value, max, what, each) {
  if (!Array.isArray(value)) throw new Refused(`${what} is not a list`);
  if (value.length > max) throw new Refused(`${what} has more than ${max} items`);
  return value.map((item, i) => each(item, `${what}[${i}]`));
}

/** @param {unknown} value */
const lines = (value) => list(value ?? [], LIMITS.lines, "lines", (line, what) => text(line, LIMITS.line, what));

/** @param {unknown} value @param {string} what */
const headers = (value, what) =>
  list(value ?? [], LIMITS.headers, what, (pair, where) => {
    if (!Array.isArray(pair) || pair.length !== 2) throw new Refused(`${where} is not a [name, value] pair`);
    return /** @type {Header} */ ([text(pair[0], 256, `${where} name`), text(pair[1], LIMITS.header, `${where} value`)]);
  });

// Python's error of an edited run: {traceback, message, file, line} (file and line may be null).
/** @param {unknown} value @returns {PythonError | null} */
function pythonError(value) {
  if (value == null) return null;
  const error = object(value, "error");
  return {
    traceback: text(error.traceback, LIMITS.text, "error traceback"),
    message: text(error.message, LIMITS.word, "error message"),
    file: optionalText(error.file, 256, "error file"),
    line: error.line == null ? null : integer(error.line, 1, 1e7, "error line"),
  };
}

// How a run ended, as Python says it: {lines, outcome, message, error}.
/** @param {unknown} value @returns {End} */
export function checkEnd(value) {
  const end = object(value, "the answer");
  return {
    lines: lines(end.lines),
    outcome: text(end.outcome, 100, "outcome"),
    message: text(end.message ?? "", LIMITS.word, "message"),
    error: pythonError(end.error),
  };
}

// One step (or a whole run) of a resq recipe: tryit.browser.handle's StepResult. `response`:
// the last answer the client got, as text for the widget's panel.
/** @param {unknown} value */
export function checkStep(value) {
  const result = object(value, "the answer");
  const done = result.done === true;
  return {
    lines: lines(result.lines),
    done,
    outcome: done ? text(result.outcome, 100, "outcome") : null,
    message: text(result.message ?? "", LIMITS.word, "message"),
    error: pythonError(result.error),
    response: optionalText(result.response, LIMITS.text, "response"),
    unsupported: optionalText(result.unsupported, LIMITS.word, "unsupported"),
  };
}

// The hedron demo's settings ({"action": "open"}): the page to open, the recipe's window in
// seconds, its scripted clicks, its title.
/** @param {unknown} value */
export function checkSettings(value) {
  const settings = object(value, "the settings");
  const page = text(settings.page, 2048, "page");
  if (!page.startsWith("/") || page.startsWith("//")) throw new Refused("page is not a path of the app");
  return {
    page,
    window: number(settings.window, 0, 86400, "window"),
    title: text(settings.title, LIMITS.word, "title"),
    actions: list(settings.actions ?? [], LIMITS.actions, "actions", (item, what) => {
      const action = object(item, what);
      return { click: text(action.click, LIMITS.word, `${what} click`), at: number(action.at, 0, 86400, `${what} at`) };
    }),
  };
}

// The app's answer to one request: {status, reason, url, headers, body (base64), lines}.
/** @param {unknown} value */
export function checkAnswer(value) {
  const answer = object(value, "the answer");
  return {
    status: integer(answer.status, 100, 999, "status"),
    reason: text(answer.reason ?? "", LIMITS.word, "reason"),
    url: text(answer.url, 8192, "url"),
    headers: headers(answer.headers, "headers"),
    body: text(answer.body ?? "", (LIMITS.body * 4) / 3 + 4, "body"),
    lines: lines(answer.lines),
  };
}

// --- the demo panel's frame (frame.js) -------------------------------------------------------

const METHOD = /^[A-Z]{1,16}$/;

// One message from the frame, or Refused. `t`: seconds of virtual time; the caller checks it
// against the run's window and the time before.
/** @param {unknown} value @returns {FrameMessage} */
export function checkFrameMessage(value) {
  const message = object(value, "the message");
  switch (message.kind) {
    case "opened":
      return { kind: "opened" };
    case "height":
      return { kind: "height", px: number(message.px, 0, 1e6, "height") };
    case "note":
      return { kind: "note", text: String(text(message.text, LIMITS.text, "note")) };
    case "paused": {
      if (!["held", "idle", "window"].includes(message.how)) throw new Refused("paused how is unknown");
      return { kind: "paused", how: message.how, held: integer(message.held, 0, 1e6, "held") };
    }
    case "request": {
      const url = text(message.url, 8192, "url");
      if (!url.startsWith("/") || url.startsWith("//")) throw new Refused("url is not a path of the app");
      const method = text(message.method, 16, "method");
      if (!METHOD.test(method)) throw new Refused("method is not a method");
      const { body } = message;
      if (body != null && !(body instanceof Uint8Array)) throw new Refused("body is not bytes");
      if (body && body.length > LIMITS.body) throw new Refused(`body is longer than ${LIMITS.body} bytes`);
      return {
        kind: "request",
        id: integer(message.id, 1, Number.MAX_SAFE_INTEGER, "id"),
        method,
        url,
        headers: headers(message.headers, "headers"),
        body: body ?? null,
        t: number(message.t, 0, 86400, "t"),
      };
    }
    default:
      throw new Refused("its kind is unknown");
  }
}

// A note for the reader's status line: one line, at most LIMITS.note characters.
/** @param {string} value */
export function shortNote(value) {
  const line = value.replace(/\s+/g, " ").trim();
  return line.length > LIMITS.note ? `${line.slice(0, LIMITS.note - 1)}…` : line;
}

// --- the worker's messages (tryit.mjs) ---------------------------------------------------------

// The envelope of a message from the worker, or null (ignored): {kind, ...} with its fields
// checked; a reply's `result` is checked where it is used (checkStep, checkSettings...).
/** @param {unknown} value @returns {WorkerMessage | null} */
export function checkWorkerMessage(value) {
  try {
    const data = object(value, "the message");
    /** @param {unknown} v */
    const n = (v) => (v == null ? 0 : number(v, 0, Number.MAX_SAFE_INTEGER, "a number"));
    switch (data.kind) {
      case "progress":
        return {
          kind: "progress",
          stage: text(data.stage, 200, "stage"),
          bytes: n(data.bytes),
          done: data.done == null ? null : number(data.done, 0, 1, "done"),
          busy: data.busy === true,
        };
      case "ready":
        return { ...data, kind: "ready", ms: n(data.ms), bytes: n(data.bytes) };
      case "failed":
        return { kind: "failed", reason: text(data.reason, LIMITS.word, "reason") };
      case "saved":
        return { kind: "saved", ok: data.ok === true };
      case "kept":
        return { kind: "kept", files: n(data.files) };
      case "reply":
        return {
          kind: "reply",
          id: integer(data.id, 1, Number.MAX_SAFE_INTEGER, "id"),
          result: data.result,
          ms: n(data.ms),
          error: optionalText(data.error, LIMITS.text, "error"),
        };
      default:
        return null;
    }
  } catch (error) {
    if (error instanceof Refused) return null;
    throw error;
  }
}
