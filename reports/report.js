(function () {
  "use strict";
  document.body.classList.add("js");
  var cases = Array.prototype.slice.call(document.querySelectorAll("details.case"));
  var buttons = Array.prototype.slice.call(document.querySelectorAll("[data-filter]"));
  var query = document.getElementById("q");
  var shown = document.getElementById("shown");
  var mode = "all";
  function apply() {
    var q = query.value.trim().toLowerCase();
    var n = 0;
    cases.forEach(function (c) {
      var byOutcome = mode === "all" || (mode === "attention" ? c.dataset.attention === "1" : c.dataset.outcome === mode);
      var show = byOutcome && (q === "" || c.dataset.id.toLowerCase().indexOf(q) >= 0);
      c.hidden = !show;
      if (show) n++;
    });
    shown.textContent = n + " of " + cases.length + " shown";
  }
  buttons.forEach(function (b) {
    b.addEventListener("click", function () {
      mode = b.dataset.filter;
      buttons.forEach(function (x) { x.classList.toggle("on", x === b); });
      apply();
    });
  });
  query.addEventListener("input", apply);
  function openAll(open) {
    cases.forEach(function (c) { if (!c.hidden) c.open = open; });
  }
  document.getElementById("expand").addEventListener("click", function () { openAll(true); });
  document.getElementById("collapse").addEventListener("click", function () { openAll(false); });
  function reveal() {
    var el = location.hash ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
    for (var p = el; p; p = p.parentElement) {
      if (p.tagName === "DETAILS") p.open = true;
      if (p.hidden) p.hidden = false;
    }
    if (el) el.scrollIntoView();
  }
  window.addEventListener("hashchange", reveal);
  reveal();
  apply();
})();
