/* Decktet Tavern, a live table: keeps <main id="table"> current through the table's WebSocket.
   Every word comes from the page's data attributes and the server's fragments; the server sends
   {"seq", "html", "over", "t"} frames, whose parts (the felt, the calls) replace the page's by their ids.
   Between frames the page counts the table's idle time itself, from the last move's time, asking the
   server nothing. Its socket is kept alive by pings (tavernPings, table.js): one whose pong does not come
   is closed and opened again. A socket closed with 4410 (its link expired) or 4404 (the
   server's pages were turned off) is not opened again: the page says why and keeps the table as it last
   stood. */
"use strict";
(function () {
  var main = document.getElementById("table");
  if (!main || !main.dataset.ws || !window.WebSocket) {
    return;
  }
  var status = document.getElementById("status");
  var after = document.getElementById("after");
  var latest = document.getElementById("latest");
  var turnSaid = document.getElementById("turn-said");
  var seq = Number(main.dataset.seq);
  var over = main.dataset.over === "1";
  var delay = 1000;
  var socket = null;
  var ended = false;  /* revoked by the server: no more reconnecting */
  var REVOKED = {4410: "expired", 4404: "off"};
  var pings = window.tavernPings(function () {
    return socket;
  });

  function say(text) {
    if (status) {
      status.textContent = text || "";
    }
  }

  function address() {
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    return scheme + location.host + main.dataset.ws;
  }

  function finish() {
    over = true;
    say(main.dataset.done);
    if (after) {
      after.hidden = false;
    }
  }

  function words(element) {
    return element ? element.textContent.replace(/\s+/g, " ").trim() : "";
  }

  function tell() {
    /* the newest call and whose turn it is, each said once when it changes */
    var newest = main.querySelector(".call-list > li.call.newest");
    if (latest && newest) {
      var lines = newest.querySelectorAll(".line");
      var text = Array.prototype.map.call(lines, words).join(" ");
      if (text !== latest.textContent) {
        latest.textContent = text;
      }
    }
    var turn = words(main.querySelector(".turn-who"));
    if (turnSaid && turn !== turnSaid.textContent) {
      turnSaid.textContent = turn;
    }
  }

  function tick() {
    window.tavernIdle(main);
  }

  function swap(html) {
    /* each part of the frame replaces the page's part of the same id */
    var holder = document.createElement("template");
    holder.innerHTML = html;
    var parts = Array.prototype.slice.call(holder.content.children);
    for (var i = 0; i < parts.length; i += 1) {
      var part = parts[i];
      var old = part.id ? document.getElementById(part.id) : null;
      if (old && main.contains(old)) {
        old.replaceWith(part);
      } else {
        main.appendChild(part);
      }
    }
  }

  function freshen() {
    /* the last move, lit for a moment (the stylesheet keeps it still for reduced motion) */
    var lit = main.querySelectorAll(".call-list > li.call.newest, .seat.turn");
    for (var i = 0; i < lit.length; i += 1) {
      lit[i].classList.add("fresh");
    }
  }

  function show(frame) {
    if (!frame || typeof frame.seq !== "number" || typeof frame.html !== "string") {
      return;
    }
    if (frame.seq >= seq || (frame.over && !over)) {  /* the same move, newly told: its calls */
      var moved = frame.seq > seq;
      seq = frame.seq;
      main.dataset.seq = String(seq);
      swap(frame.html);
      tick();
      tell();
      if (moved) {
        freshen();
      }
    }
    if (frame.over) {
      finish();
      socket.close(1000);
    }
  }

  function retry() {
    say(main.dataset.reconnecting);
    window.setTimeout(connect, delay);
    delay = Math.min(delay * 2, 30000);
  }

  function connect() {
    if (over || ended || socket) {
      return;
    }
    try {
      socket = new WebSocket(address());
    } catch (error) {
      socket = null;
      retry();
      return;
    }
    pings.opened();
    socket.addEventListener("open", function () {
      delay = 1000;
      say(main.dataset.live);
    });
    socket.addEventListener("message", function (event) {
      var frame = null;
      try {
        frame = JSON.parse(event.data);
      } catch (error) {
        return;
      }
      if (pings.pong(frame)) {
        return;
      }
      show(frame);
    });
    socket.addEventListener("close", function (event) {
      socket = null;
      var why = REVOKED[event.code];
      if (why) {
        ended = true;
        say(main.dataset[why]);
      } else if (!over) {
        retry();
      }
    });
  }

  tick();
  tell();
  window.setInterval(tick, 1000);
  if (over) {
    finish();
  } else {
    connect();
  }
})();
