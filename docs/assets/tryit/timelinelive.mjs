// @ts-check
// The widget's timeline, live: the page shows the tested run drawn at build time; as a run
// steps it is drawn again from the widget's transcript (over the tested run's marks, which
// stay as outlines), an edited run in a lane of its own under the tested one, and Reset
// brings back the tested run. Drawing: timeline.mjs (DOM nodes, texts as text).
import { draw, parseRun, summary, toElement, windowFromCode } from "./timeline.mjs";

/** @typedef {import("./timeline.mjs").Run} Run */

export class LiveTimeline {
  /**
   * @param {HTMLElement} root the widget
   * @param {string[]} recorded the tested run's transcript
   */
  constructor(root, recorded) {
    /** @type {HTMLElement | null} */
    this.box = root.querySelector(".tryit-timeline");
    this.page = root.dataset.driver === "page";
    const window = this.box && this.box.dataset.window ? Number(this.box.dataset.window) : null;
    this.tested = parseRun(recorded, { page: this.page, window });
    this.drawn = "tested";
  }

  /**
   * Draw the run so far (`lines`, the widget's transcript); `code`: the edited files it runs,
   * or null for the tested code.
   * @param {string[]} lines @param {Record<string, string> | null} code
   */
  show(lines, code) {
    if (!this.box) return;
    if (!lines.length) return this.clear();
    // a page's window is its demo's; a client's is in its code (timeline.mjs reads it)
    const window = code && !this.page ? windowFromCode(code["client.py"] ?? "") : this.tested.window;
    const run = parseRun(lines, { page: this.page, window });
    const lanes = code
      ? [{ title: "Tested run", run: this.tested }, { title: "Edited run", run }]
      : [{ title: "This run", run, ghost: this.tested }];
    this.put(draw(lanes, { label: summary(run) }), code ? "edited" : "live");
  }

  // The tested run, as the page first showed it.
  clear() {
    if (!this.box || this.drawn === "tested") return;
    const tested = [{ title: "Tested run", run: this.tested }];
    this.put(draw(tested, { label: summary(this.tested) }), "tested");
  }

  /** @param {import("./timeline.mjs").Node} drawing @param {string} what */
  put(drawing, what) {
    const box = /** @type {HTMLElement} */ (this.box);
    box.replaceChildren(/** @type {SVGElement} */ (toElement(drawing, document)));
    box.dataset.drawn = this.drawn = what;
  }
}
