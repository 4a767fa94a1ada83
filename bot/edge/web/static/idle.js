/* Decktet Tavern, a table's idle clock, shared by the live page (live.js) and the Activity (activity.js):
   tavernIdle(root) writes in each <time class="idle-time" data-since="…"> under root how long the table
   has waited, counted from the last move's time (Unix seconds), asking the server nothing. */
"use strict";
(function () {
  function clock(seconds) {
    var s = Math.max(0, Math.floor(seconds));
    var h = Math.floor(s / 3600);
    var m = Math.floor(s / 60) % 60;
    var two = function (n) { return (n < 10 ? "0" : "") + n; };
    s = s % 60;
    return h ? h + ":" + two(m) + ":" + two(s) : m + ":" + two(s);
  }

  window.tavernIdle = function (root) {
    var times = root.querySelectorAll("time.idle-time[data-since]");
    var now = Date.now() / 1000;
    for (var i = 0; i < times.length; i += 1) {
      var since = Number(times[i].getAttribute("data-since"));
      var text = since > 0 ? clock(now - since) : "";
      if (times[i].textContent !== text) {
        times[i].textContent = text;
      }
    }
  };
})();
