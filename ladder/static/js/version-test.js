/* A candidate's test page, kept up to date while the test runs: every few seconds the
   page is fetched again and its #version-test section swapped in (the server draws it,
   so there is one drawing of the test); once the test is over the whole page reloads,
   so the promote button and the rest follow. */
(function () {
  "use strict";
  const EVERY_MS = 5000;
  function refresh() {
    const section = document.getElementById("version-test");
    if (!section || document.hidden) return window.setTimeout(refresh, EVERY_MS);
    fetch(section.dataset.url, { headers: { Accept: "text/html" }, credentials: "same-origin" })
      .then(function (answer) { return answer.ok ? answer.text() : Promise.reject(answer.status); })
      .then(function (html) {
        const fresh = new DOMParser().parseFromString(html, "text/html").getElementById("version-test");
        if (!fresh) return;
        if (fresh.dataset.state !== "running" && fresh.dataset.state !== "waiting") {
          window.location.reload();
          return;
        }
        section.replaceWith(fresh);
      })
      .catch(function () { /* the next try may do better */ })
      .finally(function () { window.setTimeout(refresh, EVERY_MS); });
  }
  window.setTimeout(refresh, EVERY_MS);
})();
