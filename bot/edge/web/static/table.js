/* Decktet Tavern, what the live page (live.js) and the Activity (activity.js) share of a live table:
   - tavernIdle(root) writes in each <time class="idle-time" data-since="…"> under root how long the table
     has waited, counted from the last move's time (Unix seconds), asking the server nothing;
   - tavernPings(socketOf) keeps the page's socket alive: every 25 s it sends {"ping": N}, and a socket
     whose pong has not come by the next ping is closed (4000), so the page opens it again (a connection a
     proxy or a sleeping phone dropped without a word). Its opened() starts a new socket's count; its
     pong(frame) says whether a frame was a pong (and takes it). */
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

  window.tavernPings = function (socketOf) {
    var pings = 0;
    var unanswered = null;  /* the number of the ping still waiting for its pong */
    window.setInterval(function () {
      var socket = socketOf();
      if (!socket || socket.readyState !== WebSocket.OPEN) {
        return;
      }
      if (unanswered !== null) {  /* the last ping went unanswered: the connection is gone */
        unanswered = null;
        socket.close(4000);
        return;
      }
      pings += 1;
      unanswered = pings;
      socket.send(JSON.stringify({ping: pings}));
    }, 25000);
    return {
      opened: function () {
        unanswered = null;
      },
      pong: function (frame) {
        if (!frame || typeof frame.pong !== "number") {
          return false;
        }
        if (frame.pong === unanswered) {
          unanswered = null;
        }
        return true;
      }
    };
  };

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
