// @ts-check
// The app's page as the hedron demo panel writes it into its sandboxed frame (panel.mjs).
//
// The page comes from the recipe's app, which the reader may have edited: it is untrusted
// markup. Parsed here with DOMParser (an inert document: nothing in it runs or loads), it is
// mapped onto what the frame allows, then serialized for the frame to write:
//   - first in its head, a Content-Security-Policy that lets run only the site's own htmx and
//     hedron.js (by their exact URLs), and nothing load from anywhere but the page itself
//     (inline styles, data: images): no inline script, no event-handler attribute, no eval,
//     no javascript: URL, no form sent anywhere, no <base>;
//   - each script the page names is fetched from the app and kept only if its bytes are the
//     site's own htmx or hedron.js (then loaded from the site); every other script is left out;
//   - its stylesheets become <style> elements and its images data: URLs (from the app, as the
//     browser would fetch them; they are not transcript lines);
//   - htmx's eval is off (allowEval, allowScriptTags: false), so hx-on and js: values do
//     nothing; hedron's own pages already say so.
// The policy and the frame's sandbox are what the browser enforces; the rest only spares the
// page's own console the refusals.

const SITE = new URL("../../_tryit/", import.meta.url);
const SCRIPTS = ["htmx.min.js", "hedron.js"].map((name) => new URL(name, SITE).href);

// What the page in the frame may do (both this and frame.html's own policy apply).
export const POLICY = [
  "default-src 'none'",
  `script-src ${SCRIPTS.join(" ")}`,
  "style-src 'unsafe-inline'",
  "img-src data:",
  "font-src data:",
  "form-action 'none'",
  "base-uri 'none'",
].join("; ");

/** @type {Promise<{ url: string, bytes: Uint8Array }[]> | null} */
let siteScripts = null;
function loadSiteScripts() {
  siteScripts ||= Promise.all(
    SCRIPTS.map(async (url) => {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`the demo panel could not load ${url} (HTTP ${response.status})`);
      return { url, bytes: new Uint8Array(await response.arrayBuffer()) };
    }),
  );
  siteScripts.catch(() => (siteScripts = null)); // the next run tries again
  return siteScripts;
}

/** @param {Uint8Array} a @param {Uint8Array} b */
const sameBytes = (a, b) => a.length === b.length && a.every((byte, i) => byte === b[i]);

/** @param {Uint8Array} bytes @param {string} type */
function dataURL(bytes, type) {
  let raw = "";
  for (let i = 0; i < bytes.length; i += 0x8000) raw += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  const mime = /^[\w.+-]+\/[\w.+-]+$/.test(type) ? type : "application/octet-stream";
  return `data:${mime};base64,${btoa(raw)}`;
}

/** @param {Document} doc @param {Record<string, string>} attributes */
function meta(doc, attributes) {
  const element = doc.createElement("meta");
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  return element;
}

// htmx's config with eval off; the page's other settings kept.
/** @param {Document} doc */
function noEval(doc) {
  const configs = [...doc.querySelectorAll('meta[name="htmx-config"]')];
  /** @type {any} the page's, unchecked */
  let values = {};
  try {
    values = JSON.parse(configs[0]?.getAttribute("content") || "{}");
  } catch {
    values = {};
  }
  if (typeof values !== "object" || values === null || Array.isArray(values)) values = {};
  if (values.allowEval === false && values.allowScriptTags === false) return;
  for (const config of configs) config.remove();
  const content = JSON.stringify({ ...values, allowEval: false, allowScriptTags: false });
  doc.head.prepend(meta(doc, { name: "htmx-config", content }));
}

// `bytes`: the page as the app sent it; `base`: the URL the frame's document has (its
// requests resolve against it); `fetchApp(path)`: the app's answer to GET path, as
// {status, type, bytes}. Returns {html, left}: the document to write, and how many scripts
// of the page were left out.
/**
 * @param {Uint8Array} bytes @param {URL} base
 * @param {(path: string) => Promise<{ status: number, type: string, bytes: Uint8Array }>} fetchApp
 */
export async function preparePage(bytes, base, fetchApp) {
  const doc = new DOMParser().parseFromString(new TextDecoder().decode(bytes), "text/html");
  /** @param {string | null} value */
  const own = (value) => {
    if (value === null) return null; // no address (a stylesheet link without href): nothing to fetch
    try {
      const url = new URL(value, base);
      return url.origin === base.origin ? url : null;
    } catch {
      return null;
    }
  };
  /** @param {URL | null} url */
  const fetched = async (url) => {
    if (!url) return null;
    const answer = await fetchApp(url.pathname + url.search);
    return answer.status === 200 ? answer : null;
  };
  for (const element of doc.querySelectorAll("meta[http-equiv], base")) element.remove();
  const site = await loadSiteScripts();
  let left = 0;
  for (const script of doc.querySelectorAll("script")) {
    const answer = script.hasAttribute("src") ? await fetched(own(script.getAttribute("src"))) : null;
    const match = answer && site.find((known) => sameBytes(known.bytes, answer.bytes));
    if (match) {
      script.setAttribute("src", match.url);
    } else {
      script.remove();
      left += 1;
    }
  }
  for (const link of doc.querySelectorAll("link")) {
    const sheet = /(^|\s)stylesheet(\s|$)/i.test(link.getAttribute("rel") || "");
    const answer = sheet ? await fetched(own(link.getAttribute("href"))) : null;
    if (answer) {
      const style = doc.createElement("style");
      if (link.hasAttribute("media")) style.setAttribute("media", /** @type {string} */ (link.getAttribute("media")));
      style.textContent = new TextDecoder().decode(answer.bytes);
      link.replaceWith(style);
    } else {
      link.remove();
    }
  }
  for (const image of doc.querySelectorAll("img")) {
    image.removeAttribute("srcset");
    const answer = image.hasAttribute("src") ? await fetched(own(image.getAttribute("src"))) : null;
    if (answer) image.setAttribute("src", dataURL(answer.bytes, answer.type));
    else image.removeAttribute("src");
  }
  noEval(doc);
  doc.head.prepend(
    meta(doc, { "http-equiv": "Content-Security-Policy", content: POLICY }),
    meta(doc, { "http-equiv": "x-dns-prefetch-control", content: "off" }),
  );
  return { html: `<!DOCTYPE html>${doc.documentElement.outerHTML}`, left };
}
