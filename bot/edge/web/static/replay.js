/* Decktet Tavern, a replay: the step links work as they are; with this, a step is fetched and swapped in
   without reloading (/r/<token>/step/<N> gives {"html", "index", "total"}), and the arrow keys step too
   (Shift: by hand). */
"use strict";
(function () {
  var main = document.getElementById("replay");
  if (!main || !window.fetch || !window.history) {
    return;
  }
  var base = location.pathname.replace(/\/+$/, "");
  var busy = false;
  var KEYS = { ArrowLeft: "prev", ArrowRight: "next" };
  var SHIFTED = { ArrowLeft: "hand-", ArrowRight: "hand+" };

  function link(which) {
    var links = main.querySelectorAll("a[data-which]");
    for (var i = 0; i < links.length; i += 1) {
      if (links[i].getAttribute("data-which") === which) {
        return links[i];
      }
    }
    return null;
  }

  function go(step, which, focus) {
    if (busy || !/^[0-9]{1,7}$/.test(step)) {
      return;
    }
    busy = true;
    var lang = encodeURIComponent(document.documentElement.lang || "");
    var there = "?step=" + step + "&lang=" + lang;
    fetch(base + "/step/" + step + "?lang=" + lang,
          { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (answer) {
        if (!answer.ok) {
          throw new Error("step " + step + ": " + answer.status);
        }
        return answer.json();
      })
      .then(function (data) {
        if (!data || typeof data.html !== "string" || typeof data.index !== "number") {
          throw new Error("step " + step + ": no step");
        }
        main.innerHTML = data.html;
        window.history.replaceState(null, "", "?step=" + data.index + "&lang=" + lang);
        busy = false;
        if (focus) {
          (link(which) || main).focus();
        }
      })
      .catch(function () {
        location.href = there;
      });
  }

  main.addEventListener("click", function (event) {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey ||
        event.altKey) {
      return;
    }
    var target = event.target.closest ? event.target.closest("a[data-step]") : null;
    if (!target || !main.contains(target)) {
      return;
    }
    event.preventDefault();
    go(target.getAttribute("data-step"), target.getAttribute("data-which"), true);
  });

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) {
      return;
    }
    var which = (event.shiftKey ? SHIFTED : KEYS)[event.key];
    var target = which ? link(which) : null;
    if (target) {
      event.preventDefault();
      go(target.getAttribute("data-step"), which, document.activeElement === target);
    }
  });
})();
