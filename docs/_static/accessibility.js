// A region that scrolls must take the keyboard's focus, or it cannot be scrolled without a mouse
// (docs/_ext/accessibility.py). Each code block, output, table or box that can scroll (its overflow
// is auto or scroll) and overflows gets tabindex="0", on load, after each resize (a phone's
// width makes more of them scroll), when a script shows hidden content ("ownership:shown") and
// when a fold (a details element) opens.
(function () {
  "use strict";
  var SELECTOR = "pre, table, div, .output";
  function overflows(el) {
    var style = window.getComputedStyle(el);
    var can = /(auto|scroll)/.test(style.overflowX + " " + style.overflowY);
    return can && (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1);
  }
  function mark() {
    document.querySelectorAll(SELECTOR).forEach(function (el) {
      var scrolls = overflows(el);
      if (scrolls && !el.hasAttribute("tabindex")) {
        el.setAttribute("tabindex", "0");
        el.setAttribute("data-scroll-focus", "");
      } else if (!scrolls && el.hasAttribute("data-scroll-focus")) {
        el.removeAttribute("tabindex");
        el.removeAttribute("data-scroll-focus");
      }
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", mark);
  } else {
    mark();
  }
  window.addEventListener("load", mark);
  // content shown by a script (a stepper's next frame) or an opened fold may scroll too
  document.addEventListener("ownership:shown", mark);
  document.addEventListener("toggle", mark, true);  // toggle does not bubble: listen on capture
  var pending = null;
  window.addEventListener("resize", function () {
    clearTimeout(pending);
    pending = setTimeout(mark, 100);
  });
})();
