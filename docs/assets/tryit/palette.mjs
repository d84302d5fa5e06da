// @ts-check
// The site's palette, for the hedron demo panel (panel.mjs), which passes it on to its
// sandboxed frame: the app's page there is drawn in hedron's light or dark colours to match.
// The theme (mkdocs-material) sets data-md-color-scheme on <body>: "slate" is its dark
// palette, "default" its light one, and the reader's toggle changes it at any time.

/** @typedef {"light" | "dark"} Scheme */

/** @returns {Scheme} */
export function siteScheme(doc = document) {
  return doc.body?.getAttribute("data-md-color-scheme") === "slate" ? "dark" : "light";
}

// Call onChange(scheme) each time the reader toggles the palette; returns what stops it.
/** @param {(scheme: Scheme) => void} onChange @returns {() => void} */
export function watchScheme(onChange, doc = document) {
  let last = siteScheme(doc);
  const observer = new MutationObserver(() => {
    const now = siteScheme(doc);
    if (now === last) return;
    last = now;
    onChange(now);
  });
  observer.observe(doc.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });
  return () => observer.disconnect();
}
