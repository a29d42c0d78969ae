import { useSyncExternalStore } from "react";
import { FALLBACK_LOCALE, NAMESPACE } from "./config";

/**
 * The browser's translator (decision 0094): what the screens ask of i18next — a key looked up in
 * the page's strings (its language, then English when loaded), `{{name}}` places filled, a missing
 * key reported (strings.browser.ts fetches its section) and shown as the key, a language change —
 * in about 1 KB of gzip instead of i18next and react-i18next's 16 KB on every page. The server
 * still renders with i18next; tests/unit/i18n-browser.test.ts compares the two over every key of
 * every language, with and without values, so a page hydrates with the same text.
 */

type Tree = { [key: string]: unknown };
type Options = Record<string, unknown> | undefined;
export type MissingKeyHandler = (lngs: readonly string[], ns: string, key: string) => void;

// i18next's defaults: `{{- name}}` (unescaped) and `{{name}}`, which are the same with escapeValue false.
const UNESCAPED = /\{\{-(.+?)\}\}/g;
const PLACE = /\{\{(.+?)\}\}/g;
const NOT_A_PATH = /( |,|\?|!|;)/;

/** A value at a dotted path, as i18next's getPath then deepFind find it. */
function valueAt(data: unknown, path: string): unknown {
  if (!data || typeof data !== "object") return undefined;
  const tree = data as Tree;
  let found: unknown = tree;
  for (const part of path.split(".")) {
    if (!found || typeof found !== "object" || !Object.hasOwn(found, part)) {
      found = undefined;
      break;
    }
    found = (found as Tree)[part];
  }
  if (found) return found;
  // deepFind: a key that itself holds dots ("held.kind.follow-up"), or a falsy value.
  if (tree[path]) return tree[path];
  const tokens = path.split(".");
  let current: unknown = tree;
  for (let i = 0; i < tokens.length; ) {
    if (!current || typeof current !== "object") return undefined;
    let next: unknown;
    let nextPath = "";
    let j = i;
    for (; j < tokens.length; ++j) {
      if (j !== i) nextPath += ".";
      nextPath += tokens[j];
      next = (current as Tree)[nextPath];
      if (next !== undefined) {
        if (["string", "number", "boolean"].includes(typeof next) && j < tokens.length - 1) continue;
        i += j - i + 1;
        break;
      }
    }
    if (j === tokens.length) return undefined;
    current = next;
  }
  return current;
}

/** i18next's interpolation with `escapeValue: false` and `skipOnVariables` (its default). */
function interpolate(text: string, data: Options): string {
  let str = text;
  for (const regex of [UNESCAPED, PLACE]) {
    regex.lastIndex = 0;
    let replaces = 0;
    let match: RegExpExecArray | null;
    while ((match = regex.exec(str))) {
      const name = match[1].trim();
      let value = valueAt(data, name);
      if (value === undefined) {
        if (data && Object.hasOwn(data, name)) value = "";
        else continue; // left as it is, as i18next leaves a value not given
      }
      const filled = typeof value === "string" ? value : value === null ? "" : String(value);
      str = str.replace(match[0], filled.replace(/\$/g, "$$$$"));
      regex.lastIndex += filled.length - match[0].length;
      if (++replaces >= 1000) break;
    }
  }
  return str;
}

export class BrowserI18n {
  private strings = new Map<string, Tree>();
  private listeners = new Set<() => void>();
  private version = 0;
  private plurals = new Map<string, Intl.PluralRules>();

  constructor(
    public language: string,
    strings: Tree,
    private onMissing: MissingKeyHandler,
  ) {
    this.strings.set(language, strings);
  }

  /** Strings that arrived (a screen's, a section's), merged into the language's (later wins). */
  addResourceBundle(lng: string, _ns: string, bundle: Tree) {
    const merge = (into: Tree, from: Tree) => {
      for (const [k, v] of Object.entries(from)) {
        const there = into[k];
        if (v && typeof v === "object" && there && typeof there === "object") merge(there as Tree, v as Tree);
        else into[k] = v;
      }
    };
    let tree = this.strings.get(lng);
    if (!tree) this.strings.set(lng, (tree = {}));
    merge(tree, bundle);
    this.changed();
  }

  async changeLanguage(lng: string) {
    this.language = lng;
    this.changed();
  }

  exists(key: string): boolean {
    return this.find(this.language, key) !== undefined;
  }

  private changed() {
    this.version++;
    this.made = null;
    for (const l of this.listeners) l();
  }

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  };

  getVersion = () => this.version;

  private find(lng: string, key: string): unknown {
    for (const l of lng === FALLBACK_LOCALE ? [lng] : [lng, FALLBACK_LOCALE]) {
      const found = valueAt(this.strings.get(l), key);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  private pluralOf(lng: string, count: number) {
    let rules = this.plurals.get(lng);
    if (!rules) this.plurals.set(lng, (rules = new Intl.PluralRules(lng)));
    return rules.select(count);
  }

  /** i18next's `t` for one namespace, `escapeValue: false`, no nesting or formats (the catalogues use none). */
  translate(raw: unknown, options?: Options): string {
    if (raw === undefined || raw === null) return "";
    let key = String(raw);
    let ns = NAMESPACE;
    // "ns:key" unless it reads as a sentence (i18next's looksLikeObjectPath).
    if (key.includes(":")) {
      const dot = key.indexOf(".");
      const path = !NOT_A_PATH.test(key) || (dot > 0 && !NOT_A_PATH.test(key.slice(0, dot)));
      if (path && !key.includes("$t(")) {
        const parts = key.split(":");
        ns = parts.shift()!;
        key = parts.join(".");
      }
    }
    const lng = this.language;
    let found: unknown;
    if (ns === NAMESPACE) {
      const count = options?.count;
      if (typeof count === "number") found = this.find(lng, `${key}_${this.pluralOf(lng, count)}`);
      if (found === undefined) found = this.find(lng, key);
    }
    if (found === undefined || found === null) {
      this.onMissing([lng], ns, key);
      // As i18next: the key stands for the text, places filled (a server's sentence passed through).
      return interpolate(key, options);
    }
    if (typeof found === "object") return `key '${key} (${lng})' returned an object instead of string.`;
    return interpolate(String(found), options);
  }

  private made: { t: (key: unknown, options?: Options) => string } | null = null;

  /** One `t` per language and set of strings: a component that keeps it sees a new one when they change. */
  fixedT() {
    if (!this.made) this.made = { t: (key, options) => this.translate(key, options) };
    return this.made.t;
  }
}

let instance: BrowserI18n | null = null;

/** Made once before hydration (entry.client.tsx) with the page's strings. */
export function startBrowserI18n(language: string, strings: Tree, onMissing: MissingKeyHandler) {
  instance = new BrowserI18n(language, strings, onMissing);
  return instance;
}

export function browserI18n(): BrowserI18n {
  if (!instance) throw new Error("the browser's strings were not started");
  return instance;
}

/** The screens' `useTranslation()` in the browser: `t` and `i18n`, drawn again when either changes. */
export function useBrowserTranslation() {
  const i18n = browserI18n();
  useSyncExternalStore(i18n.subscribe, i18n.getVersion, i18n.getVersion);
  const t = i18n.fixedT();
  return { t, i18n, ready: true };
}
