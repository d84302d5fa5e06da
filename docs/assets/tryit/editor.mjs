// @ts-check
// The code editor of the "Try it" widget: CodeMirror 6, self-hosted (built by docsite/editor.py
// from pinned npm packages), imported by its packages' names, which the import map the site
// writes into every page resolves to its copy. Nothing imports this module before the reader
// clicks Edit; importing it loads CodeMirror and editor.css.
//
//   const editor = openEditor(container, { files: [{ name, text, editable }], onChange });
//   editor.getFiles() / setFiles(files) / show(name) / markLine(name, line, message)
//   editor.clearMarks() / focus() / destroy()
//
// One tab per file, the editable ones first; the others are read-only (still focusable, so
// they can be read and copied with the keyboard). Tab belongs to the page until the reader
// chooses to edit (Enter, a first printable key, or a click in the code): only then does it
// indent, until Esc (or leaving the editor) gives it back. The hint under the code, which
// describes it, says so. Colours are the site's own code colours
// (CSS variables of the theme), so the editor follows the light and dark palettes.

import { EditorState, Prec, StateEffect, StateField } from "@codemirror/state";
import {
  Decoration,
  EditorView,
  WidgetType,
  drawSelection,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import {
  bracketMatching,
  indentOnInput,
  indentUnit,
  syntaxHighlighting,
} from "@codemirror/language";
import { defaultKeymap, history, historyKeymap, indentLess, indentMore } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import { tagHighlighter, tags } from "@lezer/highlight";
/** @import { StateEffectType, TransactionSpec } from "@codemirror/state" */
/** @import { EditorFile } from "./edits.mjs" */
/**
 * @typedef {Required<EditorFile>} File
 * @typedef {{ name: string, editable: boolean, state: EditorState, tab: HTMLButtonElement }} Entry
 * @typedef {{ line: number, message: string }} Mark
 */

const STYLESHEET = new URL("editor.css", import.meta.url).href;

// Python's tokens in the categories the site's highlighted code blocks use (editor.css gives
// each the theme's colour for that category).
const highlighter = tagHighlighter([
  { tag: [tags.keyword, tags.meta], class: "tok-keyword" },
  { tag: [tags.operator, tags.operatorKeyword], class: "tok-operator" },
  { tag: tags.punctuation, class: "tok-punctuation" },
  { tag: [tags.string, tags.special(tags.string)], class: "tok-string" },
  { tag: tags.escape, class: "tok-special" },
  { tag: tags.number, class: "tok-number" },
  { tag: [tags.bool, tags.null], class: "tok-constant" },
  { tag: tags.comment, class: "tok-comment" },
  {
    tag: [
      tags.function(tags.variableName),
      tags.function(tags.propertyName),
      tags.function(tags.definition(tags.variableName)),
      tags.definition(tags.className),
      tags.className,
      tags.namespace,
    ],
    class: "tok-function",
  },
]);

/** @type {Promise<unknown> | null} */
let sheetLoaded = null;
// The stylesheet is added on the first open (and again if a page change dropped it).
function ensureStylesheet() {
  if (!document.head.querySelector("link[data-tryit-editor]")) {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = STYLESHEET;
    link.dataset.tryitEditor = "";
    sheetLoaded = new Promise((resolve) => (link.onload = link.onerror = resolve));
    document.head.append(link);
  }
  return sheetLoaded;
}
await ensureStylesheet(); // the first editor never shows unstyled

// Marked lines (an error's line, with its message below it), one set per file.
/** @type {StateEffectType<Mark>} */
const addMark = StateEffect.define();
const clearAll = StateEffect.define();

class MessageWidget extends WidgetType {
  /** @param {string} message */
  constructor(message) {
    super();
    this.message = message;
  }
  /** @override @param {MessageWidget} other */
  eq(other) {
    return other.message === this.message;
  }
  /** @override */
  toDOM() {
    const node = document.createElement("div");
    node.className = "tryit-editor__message";
    node.textContent = this.message;
    return node;
  }
}

const marks = StateField.define({
  create: () => Decoration.none,
  update(value, tr) {
    value = value.map(tr.changes);
    for (const effect of tr.effects) {
      if (effect.is(clearAll)) value = Decoration.none;
      if (effect.is(addMark)) {
        const line = tr.state.doc.line(effect.value.line);
        const ranges = [Decoration.line({ class: "tryit-editor__marked" }).range(line.from)];
        if (effect.value.message) {
          const widget = new MessageWidget(effect.value.message);
          ranges.push(Decoration.widget({ widget, block: true, side: 1 }).range(line.to));
        }
        value = value.update({ add: ranges, sort: true });
      }
    }
    return value;
  },
  provide: (field) => EditorView.decorations.from(field),
});

/** @param {unknown} files @returns {File[]} */
function checkFiles(files) {
  if (!Array.isArray(files) || files.length === 0) {
    throw new TypeError("files must be a non-empty array of {name, text, editable}");
  }
  const seen = new Set();
  files.forEach((file, i) => {
    if (!file || typeof file.name !== "string" || !file.name) {
      throw new TypeError(`files[${i}].name must be a non-empty string`);
    }
    if (typeof file.text !== "string") throw new TypeError(`files[${i}].text must be a string`);
    if (seen.has(file.name)) throw new TypeError(`files[${i}].name ${JSON.stringify(file.name)} is repeated`);
    seen.add(file.name);
  });
  // the editable files first, in their order, then the read-only ones
  return [...files.filter((f) => f.editable), ...files.filter((f) => !f.editable)].map((f) => ({
    name: f.name,
    text: f.text,
    editable: Boolean(f.editable),
  }));
}

let nextId = 1;

/**
 * @param {Element} container
 * @param {{ files?: EditorFile[], onChange?: ((change: { name: string, text: string }) => void) | null }} options
 */
export function openEditor(container, { files, onChange = null } = {}) {
  if (!(container instanceof Element)) throw new TypeError("container must be a DOM element");
  if (onChange !== null && typeof onChange !== "function") {
    throw new TypeError("onChange must be a function (or null)");
  }
  ensureStylesheet();
  const id = `tryit-editor-${nextId++}`;
  const root = document.createElement("div");
  root.className = "tryit-editor";
  const tablist = document.createElement("div");
  tablist.className = "tryit-editor__tabs";
  tablist.setAttribute("role", "tablist");
  tablist.setAttribute("aria-label", "Files");
  const panel = document.createElement("div");
  panel.className = "tryit-editor__panel";
  panel.id = `${id}-panel`;
  panel.setAttribute("role", "tabpanel");
  const hint = document.createElement("p");
  hint.className = "tryit-editor__hint";
  hint.id = `${id}-hint`;
  root.append(tablist, panel, hint);
  container.append(root);

  /** @type {Entry[]} */
  let entries = []; // [{ name, editable, state, tab }]
  /** @type {Entry | null} */
  let current = null;
  const view = new EditorView({ parent: panel });
  let editing = false; // the reader chose to edit: Tab indents

  const describe = () => {
    if (!current) return;
    hint.textContent = !current.editable
      ? `${current.name} is read-only. Tab moves on.`
      : editing
        ? "Editing: Tab indents, Shift+Tab dedents. Esc then Tab leaves the editor."
        : "Tab moves on. To edit, press Enter or type. While editing, Esc then Tab leaves the editor.";
  };
  /** @param {boolean} on */
  const setEditing = (on) => {
    on &&= Boolean(current?.editable);
    if (on === editing) return;
    editing = on;
    root.dataset.editing = String(on);
    describe();
  };
  // Enter chooses to edit (no new line yet); Tab and Shift+Tab indent only while editing;
  // Esc stops editing (and runs on to the default keymap's Esc).
  const tabKeys = Prec.high(
    keymap.of([
      { key: "Enter", run: () => !editing && Boolean(current?.editable) && (setEditing(true), true) },
      { key: "Tab", run: (target) => editing && indentMore(target), shift: (target) => editing && indentLess(target) },
      { key: "Escape", run: () => (setEditing(false), false) },
    ]),
  );
  const chooseToEdit = EditorView.domEventHandlers({
    keydown(event) {
      const printable = [...event.key].length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey;
      if (printable) setEditing(true);
      return false;
    },
    mousedown() {
      setEditing(true);
      return false;
    },
  });

  /** @param {File} file */
  const stateFor = (file) =>
    EditorState.create({
      doc: file.text,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightSpecialChars(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        highlightActiveLine(),
        python(),
        syntaxHighlighting(highlighter),
        indentUnit.of("    "),
        tabKeys,
        chooseToEdit,
        keymap.of([...defaultKeymap, ...historyKeymap]),
        EditorState.readOnly.of(!file.editable),
        EditorView.contentAttributes.of({
          // a Tab stop axe-core also counts as one (its scroller is a scrollable region)
          tabindex: "0",
          "aria-label": `${file.name} (Python${file.editable ? "" : ", read-only"})`,
          "aria-describedby": hint.id,
        }),
        marks,
        EditorView.updateListener.of((update) => {
          if (update.focusChanged && !update.view.hasFocus) setEditing(false); // Tab is the page's again
          if (update.docChanged && onChange) onChange({ name: file.name, text: update.state.doc.toString() });
        }),
      ],
    });

  /** @param {string} name */
  const entry = (name) => {
    const found = entries.find((e) => e.name === name);
    if (!found) throw new RangeError(`file: no file named ${JSON.stringify(name)}`);
    return found;
  };

  /** @param {Entry} target */
  const select = (target, { focusTab = false } = {}) => {
    if (current === target) return;
    if (current) current.state = view.state;
    current = target;
    view.setState(target.state);
    for (const e of entries) {
      const selected = e === target;
      e.tab.setAttribute("aria-selected", String(selected));
      e.tab.tabIndex = selected ? 0 : -1;
    }
    panel.setAttribute("aria-labelledby", target.tab.id);
    setEditing(false);
    describe();
    if (focusTab) target.tab.focus();
  };

  /** @param {File[]} files */
  const build = (files) => {
    if (current) current.state = view.state;
    current = null;
    entries = files.map((file, i) => {
      const tab = document.createElement("button");
      tab.type = "button";
      tab.className = "tryit-editor__tab";
      tab.id = `${id}-tab-${i}`;
      tab.setAttribute("role", "tab");
      tab.setAttribute("aria-controls", panel.id);
      tab.textContent = file.name;
      if (!file.editable) {
        const note = document.createElement("span");
        note.className = "tryit-editor__readonly";
        note.textContent = " (read-only)";
        tab.append(note);
      }
      return { name: file.name, editable: file.editable, state: stateFor(file), tab };
    });
    tablist.replaceChildren(...entries.map((e) => e.tab));
    select(entries[0]);
  };

  tablist.addEventListener("click", (event) => {
    const tab = /** @type {Element} */ (event.target).closest("[role=tab]");
    const target = tab && entries.find((e) => e.tab === tab);
    if (target) select(target);
  });
  // The tab list is one Tab stop; the arrow keys, Home and End move between the files.
  tablist.addEventListener("keydown", (event) => {
    const index = entries.indexOf(/** @type {Entry} */ (current));
    const moves = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: entries.length - 1 };
    if (!(event.key in moves)) return;
    event.preventDefault();
    const next = (moves[/** @type {keyof moves} */ (event.key)] + entries.length) % entries.length;
    select(entries[next], { focusTab: true });
  });

  build(checkFiles(files));

  /** @param {Entry} target @param {TransactionSpec} spec */
  const changeOf = (target, spec) => {
    if (target === current) view.dispatch(spec);
    else target.state = target.state.update(spec).state;
  };

  return {
    root,
    view,
    getFiles() {
      if (current) current.state = view.state;
      return entries.map((e) => ({ name: e.name, text: e.state.doc.toString(), editable: e.editable }));
    },
    /** @param {EditorFile[]} files */
    setFiles(files) {
      build(checkFiles(files));
    },
    /** @param {string} name */
    show(name) {
      select(entry(name));
    },
    current() {
      return /** @type {Entry} built with a file at least */ (current).name;
    },
    /** @param {string} name @param {number} line */
    markLine(name, line, message = "") {
      const target = entry(name);
      if (target === current) target.state = view.state;
      const lines = target.state.doc.lines;
      if (!Number.isInteger(line) || line < 1 || line > lines) {
        throw new RangeError(`line must be an integer from 1 to ${lines}, got ${line}`);
      }
      if (typeof message !== "string") throw new TypeError("message must be a string");
      select(target);
      const pos = view.state.doc.line(line).from;
      view.dispatch({
        effects: [addMark.of({ line, message }), EditorView.scrollIntoView(pos, { y: "center" })],
      });
    },
    clearMarks() {
      for (const e of entries) changeOf(e, { effects: clearAll.of(null) });
    },
    focus() {
      view.focus();
    },
    destroy() {
      view.destroy();
      root.remove();
    },
  };
}
