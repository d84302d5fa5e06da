// @ts-check
// hedron's own client code: one rule htmx has no setting for. htmx neither swaps nor stops on
// an error answer, so a Poll whose endpoint answers 404 or 410 (what it watches is gone: a
// job id from before a restart, a deleted record) would poll forever. Here such a Poll is
// replaced by a still copy that says so. Other errors (a 5xx while a server restarts) keep
// polling. No inline script: the page's CSP allows only same-origin files.
document.addEventListener("htmx:afterRequest", (event) => {
  const poll = event.detail.elt;
  const status = event.detail.xhr ? event.detail.xhr.status : 0;
  if (!(poll instanceof Element) || !poll.classList.contains("h-poll")) return;
  if (status !== 404 && status !== 410) return;
  const still = /** @type {HTMLElement} */ (poll.cloneNode(false)); // same id and class, no children
  for (const name of still.getAttributeNames()) {
    if (name.startsWith("hx-") || name.startsWith("data-hx-")) still.removeAttribute(name);
  }
  still.dataset.hedronStopped = String(status);
  still.setAttribute("role", "status"); // a live region first, then its text: announced
  still.setAttribute("aria-live", "polite");
  poll.replaceWith(still);
  requestAnimationFrame(() => {
    const notice = document.createElement("p");
    notice.className = "h-poll-gone";
    notice.textContent = status === 410 ? "No longer available." : "Not found.";
    still.replaceChildren(notice);
  });
});
