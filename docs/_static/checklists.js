// The focus and completion pages' checklists keep their ticks in this browser (localStorage):
// each paragraph that starts with "☐" becomes a checkbox labelled by its bold first sentence
// (docs/_ext/accessibility.py adds this file to every page; pages without such a paragraph are
// left alone). Nothing leaves the browser.
(function () {
  "use strict";
  var BOX = "\u2610";
  function key(index) {
    return "ownership-checklist:" + location.pathname.replace(/.*\//, "") + ":" + index;
  }
  function read(k) {
    try { return window.localStorage.getItem(k) === "1"; } catch (e) { return false; }
  }
  function write(k, on) {
    try { window.localStorage.setItem(k, on ? "1" : "0"); } catch (e) { /* storage refused */ }
  }
  function build() {
    var items = Array.prototype.filter.call(
      document.querySelectorAll("article p"),
      function (p) { return p.firstChild && p.firstChild.nodeType === 3 &&
                            p.firstChild.nodeValue.trim().charAt(0) === BOX; });
    items.forEach(function (p, index) {
      var box = document.createElement("input");
      box.type = "checkbox";
      box.className = "checklist-box";
      var strong = p.querySelector("strong");
      box.setAttribute("aria-label", strong ? strong.textContent : "done");
      box.checked = read(key(index));
      box.addEventListener("change", function () { write(key(index), box.checked); });
      p.firstChild.nodeValue = p.firstChild.nodeValue.replace(BOX, "");
      p.insertBefore(box, p.firstChild);
      p.classList.add("checklist-item");
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", build);
  } else {
    build();
  }
})();
