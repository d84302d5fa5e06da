// What the code editor (editor.mjs) uses of CodeMirror 6, by the packages' names the pages'
// import map resolves (docsite/editor.py): only that, as the pinned versions have it.

declare module "@codemirror/state" {
  export type Extension = { readonly extension: unknown } | readonly Extension[];

  export interface Line {
    readonly from: number;
    readonly to: number;
  }

  export interface Text {
    readonly length: number;
    readonly lines: number;
    line(n: number): Line;
    toString(): string;
  }

  export interface ChangeSet {
    readonly empty: boolean;
  }

  export interface Facet<Input> {
    of(value: Input): Extension;
  }

  export class StateEffectType<Value> {
    of(value: Value): StateEffect<Value>;
  }

  export class StateEffect<Value> {
    readonly value: Value;
    is<T>(type: StateEffectType<T>): this is StateEffect<T>;
    static define<Value = null>(): StateEffectType<Value>;
  }

  export interface TransactionSpec {
    changes?: { from: number; to?: number; insert?: string };
    effects?: StateEffect<unknown> | readonly StateEffect<unknown>[];
  }

  export interface Transaction {
    readonly changes: ChangeSet;
    readonly effects: readonly StateEffect<unknown>[];
    readonly state: EditorState;
  }

  export class StateField<Value> {
    static define<Value>(config: {
      create(state: EditorState): Value;
      update(value: Value, transaction: Transaction): Value;
      provide?: (field: StateField<Value>) => Extension;
    }): StateField<Value>;
    readonly extension: unknown;
  }

  export const Prec: {
    high(extension: Extension): Extension;
  };

  export class EditorState {
    readonly doc: Text;
    update(...specs: TransactionSpec[]): Transaction;
    static create(config?: { doc?: string; extensions?: Extension }): EditorState;
    static readonly readOnly: Facet<boolean>;
  }

  export interface Range<Value> {
    readonly from: number;
    readonly to: number;
    readonly value: Value;
  }

  export class RangeSet<Value> {
    map(changes: ChangeSet): RangeSet<Value>;
    update(update: { add?: readonly Range<Value>[]; sort?: boolean }): RangeSet<Value>;
  }
}

declare module "@codemirror/view" {
  import type {
    EditorState,
    Extension,
    Facet,
    Range,
    RangeSet,
    StateEffect,
    StateField,
    TransactionSpec,
  } from "@codemirror/state";

  export abstract class WidgetType {
    abstract toDOM(view: EditorView): HTMLElement;
    eq(widget: WidgetType): boolean;
  }

  export abstract class Decoration {
    range(from: number, to?: number): Range<Decoration>;
    static readonly none: DecorationSet;
    static line(spec: { class?: string }): Decoration;
    static widget(spec: { widget: WidgetType; block?: boolean; side?: number }): Decoration;
  }

  export type DecorationSet = RangeSet<Decoration>;

  export interface ViewUpdate {
    readonly docChanged: boolean;
    readonly focusChanged: boolean;
    readonly state: EditorState;
    readonly view: EditorView;
  }

  export interface KeyBinding {
    key?: string;
    run?: (view: EditorView) => boolean;
    shift?: (view: EditorView) => boolean;
  }

  export class EditorView {
    constructor(config?: { parent?: Element; state?: EditorState });
    readonly state: EditorState;
    readonly hasFocus: boolean;
    setState(state: EditorState): void;
    dispatch(...specs: TransactionSpec[]): void;
    focus(): void;
    destroy(): void;
    static readonly decorations: {
      from<T>(field: StateField<T>): Extension;
    };
    static readonly contentAttributes: Facet<Record<string, string>>;
    static readonly updateListener: Facet<(update: ViewUpdate) => void>;
    static domEventHandlers(handlers: {
      keydown?: (event: KeyboardEvent, view: EditorView) => boolean;
      mousedown?: (event: MouseEvent, view: EditorView) => boolean;
    }): Extension;
    static scrollIntoView(pos: number, options?: { y?: "nearest" | "start" | "end" | "center" }): StateEffect<unknown>;
  }

  export const keymap: Facet<readonly KeyBinding[]>;
  export function drawSelection(): Extension;
  export function highlightActiveLine(): Extension;
  export function highlightActiveLineGutter(): Extension;
  export function highlightSpecialChars(): Extension;
  export function lineNumbers(): Extension;
}

declare module "@lezer/highlight" {
  export interface Tag {
    readonly name: string;
  }

  export interface Highlighter {
    style(tags: readonly Tag[]): string | null;
  }

  export function tagHighlighter(tags: readonly { tag: Tag | readonly Tag[]; class: string }[]): Highlighter;

  export const tags: {
    readonly bool: Tag;
    readonly className: Tag;
    readonly comment: Tag;
    readonly escape: Tag;
    readonly keyword: Tag;
    readonly meta: Tag;
    readonly namespace: Tag;
    readonly null: Tag;
    readonly number: Tag;
    readonly operator: Tag;
    readonly operatorKeyword: Tag;
    readonly propertyName: Tag;
    readonly punctuation: Tag;
    readonly string: Tag;
    readonly variableName: Tag;
    definition(tag: Tag): Tag;
    function(tag: Tag): Tag;
    special(tag: Tag): Tag;
  };
}

declare module "@codemirror/language" {
  import type { Extension, Facet } from "@codemirror/state";
  import type { Highlighter } from "@lezer/highlight";

  export const indentUnit: Facet<string>;
  export function bracketMatching(): Extension;
  export function indentOnInput(): Extension;
  export function syntaxHighlighting(highlighter: Highlighter): Extension;
}

declare module "@codemirror/commands" {
  import type { Extension } from "@codemirror/state";
  import type { EditorView, KeyBinding } from "@codemirror/view";

  export const defaultKeymap: readonly KeyBinding[];
  export const historyKeymap: readonly KeyBinding[];
  export function history(): Extension;
  export function indentLess(view: EditorView): boolean;
  export function indentMore(view: EditorView): boolean;
}

declare module "@codemirror/lang-python" {
  import type { Extension } from "@codemirror/state";

  export function python(): Extension;
}
