// The steppers of the core pages (ownership.pictures.stepper, drawn when the page was built):
// Back/Next buttons and the ← and → keys show one frame at a time, and the status line
// (aria-live) says which line ran and what changed. At the paused line the next frame stays
// hidden behind "Predict the next frame" until its button is pressed. Nothing is fetched.
(function () {
  "use strict";
  function setup(root) {
    var frames = root.querySelectorAll(".stepper-frame");
    var lines = root.querySelectorAll(".stepper-line");
    var predict = root.querySelector(".stepper-predict");
    var reveal = root.querySelector(".stepper-reveal");
    var status = root.querySelector(".stepper-status");
    var prev = root.querySelector(".stepper-prev");
    var next = root.querySelector(".stepper-next");
    var pause = parseInt(root.getAttribute("data-pause"), 10);
    var last = frames.length - 1;
    var at = 0;
    var waiting = false;
    var revealed = false;

    function span(frame) {
      return [parseInt(frame.getAttribute("data-first"), 10),
              parseInt(frame.getAttribute("data-last"), 10)];
    }
    function mark(cls, range) {
      lines.forEach(function (line) {
        var n = parseInt(line.getAttribute("data-line"), 10);
        line.classList.toggle(cls, range !== null && n >= range[0] && n <= range[1]);
      });
    }
    function show(k, wait) {
      at = k;
      waiting = wait;
      var shown = wait ? k - 1 : k;
      frames.forEach(function (f, i) { f.hidden = i !== shown; });
      if (predict) { predict.hidden = !wait; }
      mark("stepper-ran", shown > 0 ? span(frames[shown]) : null);
      mark("stepper-next-line", shown < last ? span(frames[shown + 1]) : null);
      prev.setAttribute("aria-disabled", String(k === 0));
      next.setAttribute("aria-disabled", String(wait || k === last));
      status.textContent = (wait ? predict : frames[shown]).getAttribute("data-status");
      document.dispatchEvent(new Event("ownership:shown"));  // accessibility.js: scrolling regions
    }
    function forward() {
      if (waiting) {
        reveal.focus();
        return;
      }
      if (at >= last) { return; }
      show(at + 1, at + 1 === pause && !revealed && predict !== null);
    }
    function back() {
      if (waiting) { show(at - 1, false); return; }
      if (at > 0) { show(at - 1, false); }
    }
    prev.addEventListener("click", back);
    next.addEventListener("click", forward);
    if (reveal) {
      reveal.addEventListener("click", function () {
        revealed = true;
        show(at, false);
        next.focus();
      });
    }
    // ← and → step here, instead of turning the page (the theme's key navigation listens on the
    // document); inside a picture that scrolls sideways they scroll it.
    root.addEventListener("keydown", function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) { return; }
      if (event.key !== "ArrowRight" && event.key !== "ArrowLeft") { return; }
      event.stopPropagation();
      if (event.target.closest && event.target.closest(".stepper-scroll")) { return; }
      if (event.key === "ArrowRight") { forward(); } else { back(); }
      event.preventDefault();
    });
    show(0, false);
  }
  function start() {
    document.querySelectorAll(".ownership-stepper").forEach(setup);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
