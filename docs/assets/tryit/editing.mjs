// @ts-check
// A "Try it" widget's Edit mode (tryit.mjs makes one per widget): the reader's copy of the
// recipe's files in the code editor, kept per recipe and shared as a link, an edited run's
// error marked in the editor, its transcript compared with the tested one. The pure parts
// are edits.mjs; the editor itself (editor.mjs, CodeMirror) is imported only when the reader
// clicks Edit or opens a share link, and the files only then fetched from the build
// (_tryit/recipes/<name>.json, written by docsite/plugin.py).

import {
  clearEdits,
  compareTranscripts,
  decodeShare,
  differenceMessage,
  editedTexts,
  encodeShare,
  loadEdits,
  saveEdits,
  shareRecipe,
} from "./edits.mjs";
import { recipeFiles } from "./recipefiles.mjs";

/** @import { EditorFile } from "./edits.mjs" */
/** @typedef {ReturnType<import("./editor.mjs").openEditor>} Editor */
/**
 * The widget an EditMode belongs to (tryit.mjs: Widget).
 * @typedef {{
 *   root: HTMLElement, recipe: string, list: HTMLElement,
 *   button(action: string): HTMLButtonElement | undefined,
 *   say(text: string): void, announce(text: string): void,
 *   act(action: string): Promise<void>, codeChanged(): void,
 * }} Widget
 */

let nextId = 1;

/**
 * @template {keyof HTMLElementTagNameMap} Tag
 * @param {Tag} tag @param {string} className
 */
function element(tag, className, text = "") {
  const node = document.createElement(tag);
  node.className = className;
  if (text) node.textContent = text;
  return node;
}

export class EditMode {
  // widget: the tryit.mjs Widget (root, recipe, button(), say(), announce(), codeChanged())
  /** @param {Widget} widget */
  constructor(widget) {
    this.widget = widget;
    this.recipe = widget.recipe;
    this.region = /** @type {HTMLElement} */ (widget.root.querySelector(".tryit__editor"));
    this.button = /** @type {HTMLButtonElement} made only for a widget with Edit */ (widget.button("edit"));
    this.region.id ||= `tryit-editor-${nextId++}`;
    this.button.setAttribute("aria-controls", this.region.id);
    /** @type {EditorFile[] | null} */
    this.originals = null;
    /** @type {Editor | null} */
    this.editor = null;
    /** @type {HTMLPreElement | null} */
    this.errorBox = null;
    // made by load(), before anything uses them
    /** @type {HTMLParagraphElement} */
    this.notice;
    /** @type {HTMLSpanElement} */
    this.noticeText;
    /** @type {HTMLInputElement} */
    this.link;
  }

  // The edited files' texts ({name: text}) a fresh run loads instead of the recipe's, or
  // null: the tested code (the editor never opened, or nothing differs).
  code() {
    if (!this.editor) return null;
    const texts = editedTexts(/** @type {EditorFile[]} */ (this.originals), this.editor.getFiles());
    return Object.keys(texts).length ? texts : null;
  }

  // Edit: open the editor (the first time: load it), or fold it away and back.
  async toggle() {
    if (!this.editor) {
      await this.load(null);
      /** @type {Editor} made by load() */ (/** @type {unknown} */ (this.editor)).focus();
      return;
    }
    this.show(/** @type {boolean} */ (this.region.hidden));
    if (!this.region.hidden) this.editor.focus();
  }

  /** @param {boolean} shown */
  show(shown) {
    this.region.hidden = !shown;
    this.button.setAttribute("aria-expanded", String(shown));
  }

  // Whether the page was opened from a share link ("#tryit=<recipe>.<data>") of this recipe.
  sharedHere() {
    return shareRecipe(location.hash) === this.recipe;
  }

  // Opened from such a link: show its code.
  async openShared() {
    if (!this.sharedHere()) return false;
    try {
      await this.load(location.hash);
    } catch (error) {
      this.widget.say(error.message);
      this.widget.announce(error.message);
      return false;
    }
    return true;
  }

  /** @param {string | null} fragment */
  async load(fragment) {
    this.originals = /** @type {EditorFile[]} */ ((await recipeFiles(this.recipe)).files);
    let files = this.originals;
    let note = "";
    if (fragment) {
      const shared = /** @type {{ files: EditorFile[], stale: boolean }} */ (await decodeShare(fragment, this.originals));
      files = shared.files;
      note = "This link carries edited code: it is not the recipe the test suite runs.";
      if (shared.stale) note += " It was written for an older version of the recipe.";
    } else {
      const kept = loadEdits(this.recipe, this.originals);
      if (kept) {
        files = kept.files;
        note = "Your edited code, kept in this browser.";
        if (kept.stale) note += " It was written for an older version of the recipe.";
      }
    }
    const { openEditor } = await import("./editor.mjs");
    this.notice = element("p", "tryit__edited");
    this.noticeText = element("span", "tryit__edited-text");
    const original = element("button", "md-button tryit__original", "Use the tested code");
    original.type = "button";
    original.addEventListener("click", () => this.widget.act("reset"));
    this.notice.append(this.noticeText, " ", original);
    const host = element("div", "tryit__editor-host");
    const tools = element("div", "tryit__editor-tools");
    const share = element("button", "md-button tryit__share", "Copy a link to this code");
    share.type = "button";
    share.addEventListener("click", () => this.share());
    // the link is shown too: the theme rewrites the address bar's "#" part as the page scrolls
    this.link = element("input", "tryit__link");
    this.link.type = "url";
    this.link.readOnly = true;
    this.link.hidden = true;
    this.link.setAttribute("aria-label", "Link to this code");
    tools.append(share, this.link);
    this.region.replaceChildren(this.notice, host, tools);
    this.show(true);
    this.editor = openEditor(host, { files, onChange: () => this.changed() });
    this.setNotice(note);
  }

  /** @param {string} text */
  setNotice(text) {
    const edited = this.code() !== null;
    this.widget.root.dataset.edited = String(edited);
    this.notice.hidden = !edited;
    this.noticeText.textContent = text || "You have edited the code: runs use your version.";
  }

  // The reader typed: keep the edit; the next Step or Run starts afresh with it.
  changed() {
    saveEdits(this.recipe, /** @type {EditorFile[]} */ (this.originals), /** @type {Editor} */ (this.editor).getFiles());
    this.dropLink(); // a link no longer holds this code
    this.link.hidden = true;
    this.setNotice("");
    this.widget.codeChanged();
  }

  // Reset: the tested code again, nothing kept, no share link left. (Before
  // the editor is opened, the tested code is what runs: the kept edits stay for later.)
  reset() {
    if (!this.editor) return;
    clearEdits(this.recipe);
    this.dropLink();
    this.clearRun();
    this.editor.setFiles(/** @type {EditorFile[]} */ (this.originals));
    this.link.hidden = true;
    this.setNotice("");
  }

  dropLink() {
    if (this.sharedHere()) {
      history.replaceState(history.state, "", location.pathname + location.search);
    }
  }

  // A link that carries the edited code in its fragment (never sent to a server).
  async share() {
    const fragment = await encodeShare(this.recipe, /** @type {EditorFile[]} */ (this.originals), /** @type {Editor} */ (this.editor).getFiles());
    const link = location.href.split("#")[0] + fragment;
    this.link.value = link;
    this.link.hidden = false;
    let copied = false;
    try {
      await navigator.clipboard.writeText(link);
      copied = true;
    } catch {
      this.link.select(); // no clipboard here (permissions): the reader copies it
    }
    const text = `${copied ? "Link copied" : "Here is the link"}: the code travels in the part after “#”, which the browser never sends to a server.`;
    this.widget.say(text);
    this.widget.announce(text);
  }

  // A fresh run starts: no error shown, no line marked.
  clearRun() {
    this.editor?.clearMarks();
    if (this.errorBox) this.errorBox.hidden = true;
  }

  // Python's error of the edited run: its traceback under the transcript, its line marked.
  /** @param {import("./checks.mjs").PythonError} error */
  showError(error) {
    if (!this.errorBox) {
      this.errorBox = element("pre", "tryit__error");
      this.errorBox.tabIndex = 0;
      this.errorBox.setAttribute("aria-label", "Python's error");
      this.widget.list.after(this.errorBox);
    }
    this.errorBox.textContent = error.traceback;
    this.errorBox.hidden = false;
    if (this.editor && error.file && error.line) {
      try {
        this.editor.markLine(error.file, error.line, error.message);
      } catch {
        return; // a file or a line the editor does not have: nothing to mark
      }
      this.show(true);
    }
  }

  // Mark where the transcript shown in `list` first differs from the tested one; its words
  // ("differs from the tested run at step 3"), or null while they agree.
  /** @param {HTMLElement} list @param {string[]} recorded @param {boolean} done */
  markDifference(list, recorded, done) {
    const items = /** @type {HTMLElement[]} transcript lines */ ([...list.children]);
    for (const item of items) {
      item.classList.remove("tryit__differs");
      delete item.dataset.differs;
    }
    if (!recorded.length) return null;
    const difference = compareTranscripts(
      recorded,
      items.map((item) => item.textContent),
      { done },
    );
    if (!difference) return null;
    const words = differenceMessage(difference);
    const item = items[Math.min(difference.index, items.length - 1)];
    if (item) {
      item.classList.add("tryit__differs");
      item.dataset.differs = words;
    }
    return words;
  }
}
