// @ts-check
// A run drawn as a timeline: one mark per request at its time, the waits between them, the
// window's end and what ended the run. Pure: transcript lines in, a small tree of SVG
// elements out, written either as a string (the site's build runs this module under Node:
// timeline_node.mjs) or as DOM nodes (the "Try it" widget, with createElementNS and
// textContent: the lines of an edited run come from code a reader wrote).
//
// A transcript line: `t=<seconds>s METHOD PATH -> STATUS REASON | what was seen` (the text
// after `|` is not read), `> ` printed, `# t=<seconds>s ...` around the app, `= <how it ended>`.

/** @typedef {"ok" | "retry" | "stop" | "error"} Kind */
/** @typedef {{ t: number, method: string, path: string, status: number, kind: Kind, click: boolean, line: string }} Mark */
/** @typedef {{ t: number, label: string, kind: Kind | "unknown", line: string }} End */
/** @typedef {{ marks: Mark[], notes: { t: number, line: string }[], end: End | null, window: number | null, lines: string[] }} Run */
/** @typedef {{ name: string, attrs: Record<string, string | number>, children: (Node | string)[] }} Node */
/** @typedef {{ title: string, run: Run, ghost?: Run | null }} Lane */

const REQUEST = /^t=(\d+(?:\.\d+)?)s\s+([A-Z]+)\s+(\S+)\s+->\s+(\d{3})\b/;
const NOTE = /^# t=(\d+(?:\.\d+)?)s\s/;
const END_TIME = /\bat t=(\d+(?:\.\d+)?)s\b/;
const WINDOW_ELAPSED = /window elapsed \((\d+(?:\.\d+)?)s\)/;
// Statuses a poller waits through (resq's retryable set, and hedron's 409 "not yet").
const RETRYABLE = new Set([408, 409, 425, 429, 500, 502, 503, 504]);

/** @param {number} status @returns {Kind} */
export function kindOf(status) {
  if (status === 286) return "stop";
  if (status >= 200 && status < 300) return "ok";
  return RETRYABLE.has(status) ? "retry" : "error";
}

/**
 * The polling window a resq client's code asks for: the `timeout=` of its first polling call
 * (a verb, `poll(...)` or `Poller(...)`; not the network timeout of `Requests(...)`).
 * @param {string} code @returns {number | null}
 */
export function windowFromCode(code) {
  const call = /\b(?:get|post|put|patch|delete|head|poll|Poller)\((?:[^()]|\([^()]*\))*?\btimeout=(\d+(?:\.\d+)?)/;
  const found = call.exec(code);
  return found ? Number(found[1]) : null;
}

/**
 * Read a transcript. `page`: the run is a hedron page's (its non-GET requests are the
 * reader's clicks); `window`: the window in seconds, when known.
 * @param {string[]} lines @param {{ page?: boolean, window?: number | null }} [options]
 * @returns {Run}
 */
export function parseRun(lines, { page = false, window = null } = {}) {
  /** @type {Run} */
  const run = { marks: [], notes: [], end: null, window, lines: [...lines] };
  for (const line of lines) {
    const request = REQUEST.exec(line);
    if (request) {
      const [, t, method, path, status] = request;
      const code = Number(status);
      run.marks.push({ t: Number(t), method, path, status: code, kind: kindOf(code), click: page && method !== "GET", line });
      continue;
    }
    const note = NOTE.exec(line);
    if (note) run.notes.push({ t: Number(note[1]), line: line.slice(2) });
    else if (line.startsWith("= ")) run.end = endOf(line, run);
  }
  return run;
}

/** @param {string} line @param {Run} run @returns {End} */
function endOf(line, run) {
  const last = run.marks.at(-1);
  const at = END_TIME.exec(line);
  const elapsed = WINDOW_ELAPSED.exec(line);
  if (elapsed) run.window = Number(elapsed[1]);
  const t = at ? Number(at[1]) : elapsed ? Number(elapsed[1]) : last ? last.t : 0;
  const text = line.slice(2);
  /** @type {[RegExp, string, End["kind"]][]} */
  const known = [
    [/^done: terminal state, the app answered 286/, "286: stopped polling", "stop"],
    [/^done: terminal state, \d{3}/, "success", "ok"],
    [/^done: window elapsed/, "window elapsed", "retry"],
    [/^done: the page sends no further request/, "page stopped", "ok"],
    [/^done: the code returned without a request/, "no request", "unknown"],
  ];
  for (const [pattern, label, kind] of known) if (pattern.test(text)) return { t, label, kind, line };
  const bad = /^done: the code returned with a bad last response, (\d{3})/.exec(text);
  if (bad) {
    const windowHit = run.window !== null && last !== undefined && t >= run.window - gapBefore(run.marks);
    return { t, label: windowHit ? `window elapsed (${bad[1]})` : `gave up on ${bad[1]}`, kind: "retry", line };
  }
  const error = /^error: ([\w.]+)/.exec(text);
  if (error) return { t, label: `error: ${error[1]}`.slice(0, 24), kind: "error", line };
  return { t, label: text.split(/[:,]/)[0].slice(0, 24), kind: "unknown", line };
}

// The wait before the last request (how close to the window a run that gave up came).
/** @param {Mark[]} marks */
function gapBefore(marks) {
  const times = [...new Set(marks.map((m) => m.t))];
  return times.length > 1 ? times[times.length - 1] - times[times.length - 2] : 0;
}

// ---- layout ------------------------------------------------------------------------------

const PAD_LEFT = 18;
const PAD_RIGHT = 160; // the end's label
const LANE = 124;
const AXIS = 66; // the marks' line, from a lane's top
const CHAR_W = 6.6; // the width of a label's character (11 px monospace)
const MIN_SEP = 34; // the least distance between two marks of a row (their labels)
const MIN_WIDTH = 560;
const MAX_WIDTH = 2400;
const FIT = 0.85; // the most a drawing shrinks to fit its column before it scrolls
const SCALE_ROW = 22; // the seconds under the lanes

/** @param {number} value */
const fmt = (value) => String(Math.round(value * 100) / 100);

/** @param {string} name @param {Record<string, string | number>} [attrs] @param {(Node | string)[]} [children] @returns {Node} */
const el = (name, attrs = {}, children = []) => ({ name, attrs, children });

/** @param {Run[]} runs */
function span(runs) {
  let end = 0;
  let window = Infinity;
  for (const run of runs) {
    for (const m of run.marks) end = Math.max(end, m.t);
    if (run.end) end = Math.max(end, run.end.t);
    for (const n of run.notes) end = Math.max(end, n.t);
    if (run.window !== null) window = Math.min(window, run.window);
  }
  // the window is on the scale when it is near; otherwise its label says where it is
  const withWindow = window !== Infinity && window <= end * 1.6 + 2 ? Math.max(end, window) : end;
  return Math.max(withWindow, 1);
}

/** @param {Run[]} runs */
function smallestGap(runs) {
  let gap = Infinity;
  for (const run of runs) {
    const times = [...new Set(run.marks.map((m) => m.t))].sort((a, b) => a - b);
    for (let i = 1; i < times.length; i++) gap = Math.min(gap, times[i] - times[i - 1]);
  }
  return gap === Infinity ? 1 : gap;
}

/** @param {number} pxPerSecond */
function tickStep(pxPerSecond) {
  for (const step of [0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300]) if (step * pxPerSecond >= 60) return step;
  return 600;
}

/**
 * Seconds to x: linear, but a moment with several requests of one row (a client's requests
 * sent at once) is as wide as they need side by side, and later times move right by that.
 * @param {Run[]} runs @param {number} pxPerSecond @returns {(t: number) => number}
 */
function scale(runs, pxPerSecond) {
  /** @type {Map<number, number>} */
  const extra = new Map();
  for (const run of runs) {
    /** @type {Map<string, number>} */
    const counts = new Map();
    for (const m of run.marks) {
      const key = `${m.t} ${m.click}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      extra.set(m.t, Math.max(extra.get(m.t) ?? 0, ((counts.get(key) ?? 1) - 1) * MIN_SEP));
    }
  }
  return (t) => {
    let shift = 0;
    for (const [at, width] of extra) if (at < t) shift += width;
    return PAD_LEFT + t * pxPerSecond + shift;
  };
}

/**
 * Where each mark goes: at its time, or after the mark before it in its row when both would
 * overlap (requests of one moment sit side by side, in order).
 * @param {Mark[]} marks @param {(t: number) => number} x
 */
function placed(marks, x) {
  /** @type {number[]} */
  const at = [];
  const last = { request: -Infinity, click: -Infinity };
  for (const m of marks) {
    const row = m.click ? "click" : "request";
    const here = Math.max(x(m.t), last[row] + MIN_SEP);
    last[row] = here;
    at.push(here);
  }
  return at;
}

/**
 * The drawing of one or more runs, one lane each, on one time scale.
 * @param {Lane[]} lanes @param {{ label?: string }} [options]
 * @returns {Node}
 */
export function draw(lanes, { label = "" } = {}) {
  const runs = lanes.flatMap((lane) => (lane.ghost ? [lane.run, lane.ghost] : [lane.run]));
  const seconds = span(runs);
  const crowded = MIN_SEP / smallestGap(runs);
  const pxPerSecond = Math.min(Math.max(crowded, (MIN_WIDTH - PAD_LEFT - PAD_RIGHT) / seconds), (MAX_WIDTH - PAD_LEFT - PAD_RIGHT) / seconds);
  const x = scale(runs, pxPerSecond);
  let right = x(seconds);
  for (const run of runs) {
    const at = placed(run.marks, x);
    if (at.length) right = Math.max(right, at[at.length - 1]);
  }
  const width = Math.ceil(right + PAD_RIGHT);
  const height = lanes.length * LANE + SCALE_ROW;
  const step = tickStep(pxPerSecond);
  /** @type {Node[]} */
  const grid = [];
  for (let t = 0; t <= seconds + 1e-9; t += step) {
    grid.push(el("line", { class: "tl-grid", x1: fmt(x(t)), x2: fmt(x(t)), y1: 4, y2: height - SCALE_ROW + 2 }));
    grid.push(el("text", { class: "tl-scale", x: fmt(x(t)), y: height - 6, "text-anchor": "middle" }, [`${fmt(t)} s`]));
  }
  const body = lanes.map((lane, i) => drawLane(lane, i * LANE, x, seconds, width));
  /** @type {(Node | string)[]} */
  const head = [];
  if (label) head.push(el("title", {}, [label]));
  const desc = lanes.map((lane) => `${lane.title}:\n${lane.run.lines.join("\n")}`).join("\n\n");
  head.push(el("desc", {}, [desc]));
  return el(
    "svg",
    {
      xmlns: "http://www.w3.org/2000/svg",
      class: "tl",
      role: "img",
      width,
      height,
      // shrinks a little to fit its column (tryit.css), then scrolls rather than shrink its labels
      style: `min-width: ${Math.floor(width * FIT)}px`,
      viewBox: `0 0 ${width} ${height}`,
      "data-lanes": lanes.length,
      "data-seconds": fmt(seconds),
    },
    [...head, el("g", { class: "tl-grids" }, grid), ...body],
  );
}

/**
 * @param {Lane} lane @param {number} top @param {(t: number) => number} x @param {number} seconds @param {number} width
 * @returns {Node}
 */
function drawLane(lane, top, x, seconds, width) {
  const { run, ghost } = lane;
  const axis = top + AXIS;
  /** @type {Node[]} */
  const parts = [el("text", { class: "tl-lane", x: PAD_LEFT - 10, y: top + 13 }, [lane.title])];
  parts.push(el("line", { class: "tl-axis", x1: fmt(x(0)), x2: fmt(x(seconds)), y1: axis, y2: axis }));
  if (run.window !== null) parts.push(drawWindow(run.window, top, x, seconds, width));
  if (ghost) parts.push(el("g", { class: "tl-ghost", "aria-hidden": "true" }, marksOf(ghost, axis, x, false)));
  parts.push(...waitsOf(run, axis, x));
  for (const note of run.notes) {
    parts.push(el("line", { class: "tl-note", x1: fmt(x(note.t)), x2: fmt(x(note.t)), y1: axis - 14, y2: axis + 14 }, [el("title", {}, [note.line])]));
  }
  parts.push(el("g", { class: "tl-marks" }, marksOf(run, axis, x, true)));
  if (run.end) {
    const ex = x(run.end.t);
    const last = placed(run.marks, x).at(-1);
    const at = Math.max(ex, last === undefined ? ex : last + 10);
    parts.push(
      el("g", { class: `tl-end tl-${run.end.kind}`, "data-t": fmt(run.end.t), "data-end": run.end.label }, [
        el("title", {}, [run.end.line]),
        el("line", { x1: fmt(at), x2: fmt(at), y1: axis - 14, y2: axis + 8 }),
        el("text", { x: fmt(at + 6), y: axis - 6 }, [run.end.label]),
      ]),
    );
  }
  return el("g", { class: "tl-run", "data-title": lane.title }, parts);
}

/** @param {number} window @param {number} top @param {(t: number) => number} x @param {number} seconds @param {number} width */
function drawWindow(window, top, x, seconds, width) {
  const text = `window ${fmt(window)} s`;
  if (window > seconds + 1e-9) {
    // beyond the scale: said at the lane's right end
    return el("text", { class: "tl-window", "data-window": fmt(window), x: width - 6, y: top + 13, "text-anchor": "end" }, [`${text} →`]);
  }
  const wx = fmt(x(window));
  return el("g", { class: "tl-window", "data-window": fmt(window) }, [
    el("line", { x1: wx, x2: wx, y1: top + 18, y2: top + AXIS }),
    el("text", { x: wx, y: top + 13, "text-anchor": "middle" }, [text]),
  ]);
}

// Under the requests: each wait between two moments, how long it was; and the requests of
// one moment, bracketed together.
/** @param {Run} run @param {number} axis @param {(t: number) => number} x */
function waitsOf(run, axis, x) {
  const at = placed(run.marks, x);
  /** @type {Map<number, [number, number]>} the first and last x of each moment's requests */
  const moments = new Map();
  run.marks.forEach((m, i) => {
    if (m.click) return;
    const seen = moments.get(m.t);
    moments.set(m.t, seen ? [seen[0], at[i]] : [at[i], at[i]]);
  });
  const times = [...moments.keys()].sort((a, b) => a - b);
  // Each bracket's label, unless it would run into the one before it: a wait's label gives
  // way to the next moment's ("at 30 s"), whose bracket says more.
  const half = (/** @type {string} */ text) => (text.length * CHAR_W) / 2;
  /** @param {string} kind @param {number} a @param {number} b @param {string} text */
  const bracket = (kind, a, b, text) => {
    const mid = (a + b) / 2;
    const label = { text, mid };
    const node = el("text", { x: fmt(mid), y: axis + 52, "text-anchor": "middle" }, [text]);
    return { label, node, g: el("g", { class: kind }, [el("path", { d: `M${fmt(a)} ${axis + 36}v4H${fmt(b)}v-4` })]) };
  };
  /** @type {{ label: { text: string, mid: number }, node: Node, g: Node }[]} */
  const out = [];
  times.forEach((t, i) => {
    const [first, last] = /** @type {[number, number]} */ (moments.get(t));
    if (i > 0) {
      const before = /** @type {[number, number]} */ (moments.get(times[i - 1]))[1];
      if (first - before >= MIN_SEP) out.push(bracket("tl-wait", before + 3, first - 3, `+${fmt(t - times[i - 1])} s`));
    }
    if (last > first) out.push(bracket("tl-same", first - 4, last + 4, `at ${fmt(t)} s`));
  });
  return out.map(({ label, node, g }, i) => {
    const next = out[i + 1]?.label;
    const clash = next && label.mid + half(label.text) + 4 > next.mid - half(next.text);
    if (!(clash && g.attrs.class === "tl-wait")) g.children.push(node);
    return g;
  });
}

/** @param {Run} run @param {number} axis @param {(t: number) => number} x @param {boolean} labelled */
function marksOf(run, axis, x, labelled) {
  const at = placed(run.marks, x);
  return run.marks.map((m, i) => {
    const cx = fmt(at[i]);
    const shape = m.click
      ? el("path", { d: `M${cx} ${axis - 7}l6 7l-6 7l-6-7z` })
      : el("circle", { cx, cy: axis, r: 5 });
    /** @type {Node[]} */
    const parts = [shape];
    if (labelled) {
      parts.unshift(el("title", {}, [m.line.split(" | ")[0]]));
      const [y1, y2] = m.click ? [axis - 26, axis - 14] : [axis + 19, axis + 31];
      if (m.click) parts.push(el("text", { class: "tl-what", x: cx, y: y1 - 12, "text-anchor": "middle" }, ["click"]));
      parts.push(el("text", { class: "tl-method", x: cx, y: y1, "text-anchor": "middle" }, [m.method]));
      parts.push(el("text", { class: "tl-status", x: cx, y: y2, "text-anchor": "middle" }, [String(m.status)]));
    }
    const attrs = { class: `tl-mark tl-${m.kind}${m.click ? " tl-click" : ""}`, "data-t": fmt(m.t), "data-method": m.method, "data-status": m.status };
    return el("g", attrs, parts);
  });
}

/**
 * A one-sentence summary of a run (the picture's name for assistive technology).
 * @param {Run} run
 */
export function summary(run) {
  const n = run.marks.length;
  const end = run.end ? `; ended at ${fmt(run.end.t)} s: ${run.end.label}` : "";
  return `Timeline: ${n} request${n === 1 ? "" : "s"}${end}. The transcript has every line.`;
}

// ---- output -------------------------------------------------------------------------------

/** @param {string} text */
const escape = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** The drawing as SVG markup (every text and attribute escaped). @param {Node} node @returns {string} */
export function toMarkup(node) {
  const attrs = Object.entries(node.attrs).map(([k, v]) => ` ${k}="${escape(String(v))}"`).join("");
  const inner = node.children.map((c) => (typeof c === "string" ? escape(c) : toMarkup(c))).join("");
  return `<${node.name}${attrs}>${inner}</${node.name}>`;
}

const SVG = "http://www.w3.org/2000/svg";
// As much of the DOM as this module uses (it also runs under Node, which has none).
/** @typedef {{ setAttribute(name: string, value: string): void, appendChild(child: any): unknown }} DomElement */
/** @typedef {{ createElementNS(ns: string, name: string): DomElement, createTextNode(text: string): unknown }} DomDocument */

/**
 * The drawing as DOM nodes of `doc` (texts set as text, never parsed).
 * @param {Node} node @param {DomDocument} doc @returns {DomElement}
 */
export function toElement(node, doc) {
  const element = doc.createElementNS(SVG, node.name);
  for (const [k, v] of Object.entries(node.attrs)) if (k !== "xmlns") element.setAttribute(k, String(v));
  for (const child of node.children) {
    element.appendChild(typeof child === "string" ? doc.createTextNode(child) : toElement(child, doc));
  }
  return element;
}
