// @ts-check
// The component previews of the gallery are inert: a click, a middle click or a submit in a
// preview never navigates, never submits, and never reaches the theme's instant navigation
// (it listens on the body, so the capture listener on the window runs first). Focus and
// hover still work: a reader can tab to a button and see its focus ring.
const PREVIEW = ".hedron-preview";

/** @param {Event} event */
function inPreview(event) {
  return event.target instanceof Element && event.target.closest(PREVIEW) !== null;
}

for (const type of ["click", "auxclick", "submit"]) {
  window.addEventListener(
    type,
    (event) => {
      if (inPreview(event)) {
        event.preventDefault();
        event.stopPropagation();
      }
    },
    { capture: true },
  );
}
