/* Decktet Tavern, a live table: keeps <main id="table"> current through the table's WebSocket.
   Every word comes from the page's data attributes; the server sends {"seq", "html", "over"} frames.
   A socket closed with 4410 (its link expired) or 4404 (the server's pages were turned off) is not
   opened again: the page says why and keeps the table as it last stood. */
"use strict";
(function () {
  var main = document.getElementById("table");
  if (!main || !main.dataset.ws || !window.WebSocket) {
    return;
  }
  var status = document.getElementById("status");
  var after = document.getElementById("after");
  var latest = document.getElementById("latest");
  var seq = Number(main.dataset.seq);
  var over = main.dataset.over === "1";
  var delay = 1000;
  var socket = null;
  var ended = false;  /* revoked by the server: no more reconnecting */
  var REVOKED = {4410: "expired", 4404: "off"};

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

  function tell() {
    var last = main.querySelector(".call-list > li.call:last-child");
    if (!latest || !last) {
      return;
    }
    var lines = last.querySelectorAll(".line");
    var text = Array.prototype.map.call(lines, function (line) {
      return line.textContent;
    }).join(" ");
    if (text !== latest.textContent) {
      latest.textContent = text;
    }
  }

  function show(frame) {
    if (!frame || typeof frame.seq !== "number" || typeof frame.html !== "string") {
      return;
    }
    if (frame.seq >= seq || (frame.over && !over)) {  /* the same move, newly told: its calls */
      seq = frame.seq;
      main.dataset.seq = String(seq);
      main.innerHTML = frame.html;
      tell();
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

  if (over) {
    finish();
  } else {
    connect();
  }
})();
