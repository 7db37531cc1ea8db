// Every page: marks the document as scripted before it is drawn (so a phone shows
// the menu folded from the start, with no flash of the long link list), and opens
// and closes that menu. Without scripts the links simply wrap under the name.
"use strict";
document.documentElement.classList.add("js");

function setMenu(nav, open) {
  nav.classList.toggle("open", open);
  nav.querySelector(".menu-toggle").setAttribute("aria-expanded", String(open));
}

document.addEventListener("click", (event) => {
  const button = event.target.closest(".menu-toggle");
  if (button) setMenu(button.closest(".site-nav"), !button.closest(".site-nav").classList.contains("open"));
});

document.addEventListener("keydown", (event) => {
  const nav = document.querySelector(".site-nav.open");
  if (event.key !== "Escape" || !nav) return;
  setMenu(nav, false);
  nav.querySelector(".menu-toggle").focus();
});

// A box that scrolls sideways (a wide table on a phone) with nothing focusable in it
// could not be scrolled from a keyboard: while it overflows it takes focus and a name
// (its caption, or the heading above it), so arrow keys scroll it.
const SCROLLERS = "main .table-scroll, main table, main .bracket";
const FOCUSABLE = "a[href], button, input, select, textarea, [tabindex]:not([tabindex='-1'])";

function scrollerName(box) {
  const caption = box.querySelector("caption");
  if (caption) return caption.textContent.trim();
  for (let at = box; at && at.tagName !== "MAIN"; at = at.parentElement) {
    for (let before = at.previousElementSibling; before; before = before.previousElementSibling) {
      if (/^H[1-6]$/.test(before.tagName)) return before.textContent.trim();
    }
  }
  return "Table";
}

function markScrollers() {
  for (const box of document.querySelectorAll(SCROLLERS)) {
    const overflow = getComputedStyle(box).overflowX;
    const scrolls = (overflow === "auto" || overflow === "scroll") && box.scrollWidth > box.clientWidth + 1;
    if (scrolls && !box.hasAttribute("tabindex") && !box.querySelector(FOCUSABLE)) {
      box.tabIndex = 0;
      box.dataset.scrollFocus = "1";
      if (box.tagName === "DIV") box.setAttribute("role", "region");
      if (!box.querySelector("caption")) box.setAttribute("aria-label", scrollerName(box));
    } else if (!scrolls && box.dataset.scrollFocus) {
      for (const name of ["tabindex", "role", "aria-label", "data-scroll-focus"]) box.removeAttribute(name);
    }
  }
}

let scrollersPending = false;
function markScrollersSoon() {
  if (scrollersPending) return;
  scrollersPending = true;
  requestAnimationFrame(() => { scrollersPending = false; markScrollers(); });
}
document.addEventListener("DOMContentLoaded", markScrollers);
window.addEventListener("resize", markScrollersSoon);
