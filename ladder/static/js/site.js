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
