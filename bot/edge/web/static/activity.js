/* Decktet Tavern inside Discord: the Activity's page (docs/ACTIVITY.md).
   Signs in through Discord's Embedded App SDK (the handshake and READY, authorize, POST /a/token,
   authenticate), then opens /a/ws, whose first frame is the session token. The socket sends the table's
   public frames {"seq", "html", "over"} (as the live page gets them) and, to a seated player only, their
   panel {"panel": html, "seat": n}, a private aside {"aside": html} or a refusal {"refused": text}; a press goes back
   as {"press": "<custom id>", "values": [...]}. Every word comes from the page's data attributes.
   The table's frame is the same for everyone watching it; here a seated player's own seat (by its
   data-seat) is moved alone to the bottom of the felt, the others across the top in turn after it, and
   their panel (#seat: their cards face up, their controls, the coach's hint) goes right under it, inside
   the felt. Tapping one of their cards presses the control that names it (a play button, or a box of a
   menu of cards). Between frames the page counts the table's idle time, as the live page does.
   Its socket is kept alive by pings, as the live page's is (tavernPings, table.js): one whose pong does not
   come is closed and opened again.
   Only Discord's client, the parent frame, may speak to the SDK: any other message is dropped before the
   SDK sees it (the SDK itself takes a command's answer once, by its nonce). */
"use strict";
(function () {
  var main = document.getElementById("activity");
  if (!main || !window.DiscordEmbedded || !window.WebSocket) {
    return;
  }
  var words = main.dataset;
  var table = document.getElementById("table");
  var seatBox = document.getElementById("seat");
  var status = document.getElementById("status");
  var CLIENTS = [
    "https://discord.com", "https://ptb.discord.com", "https://canary.discord.com",
    "https://discordapp.com", "https://ptb.discordapp.com", "https://canary.discordapp.com"
  ];
  var mine = null;  /* the seated player's seat, from their panel's frames */
  var seq = -1;
  var over = false;
  var session = null;
  var socket = null;
  var delay = 1000;
  var ENDED = {4401: "failed", 4403: "ended", 4404: "ended", 4410: "failed"};
  var pings = window.tavernPings(function () {
    return socket;
  });

  window.addEventListener("message", function (event) {
    var parent = window.parent.opener || window.parent;
    if (event.source !== parent || CLIENTS.indexOf(event.origin) < 0) {
      event.stopImmediatePropagation();
    }
  }, true);

  function say(text) {
    if (status) {
      status.textContent = text || "";
    }
  }

  function send(message) {
    if (socket && socket.readyState === WebSocket.OPEN) {
      socket.send(JSON.stringify(message));
    }
  }

  function tick() {
    window.tavernIdle(table);
  }

  function ring(felt, where, before) {
    var list = felt.querySelector("ul.seats." + where);
    if (!list) {
      list = document.createElement("ul");
      list.className = "seats " + where;
      var other = felt.querySelector("ul.seats");
      if (other) {
        list.setAttribute("aria-label", other.getAttribute("aria-label") || "");
      }
      felt.insertBefore(list, before);
    }
    return list;
  }

  function place() {
    /* the seated player's own seat alone at the bottom, the others across the top in turn after it, and
       their panel right under their seat */
    var felt = table.querySelector("#felt");
    if (!felt || mine === null) {
      return;
    }
    var seats = Array.prototype.slice.call(felt.querySelectorAll("li.seat[data-seat]"));
    var count = seats.length;
    var own = null;
    seats.sort(function (a, b) {
      return (Number(a.dataset.seat) - mine - 1 + 2 * count) % count
        - (Number(b.dataset.seat) - mine - 1 + 2 * count) % count;
    });
    var centre = felt.querySelector(".centre");
    var top = ring(felt, "top", centre);
    var bottom = ring(felt, "bottom", null);
    seats.forEach(function (seat) {
      if (Number(seat.dataset.seat) === mine) {
        own = seat;
        bottom.appendChild(seat);
      } else {
        top.appendChild(seat);
      }
    });
    if (!top.children.length) {
      top.remove();
    }
    if (own) {
      own.classList.add("mine");
      felt.insertBefore(seatBox, bottom.nextSibling);
      seatBox.classList.toggle("turn", own.classList.contains("turn"));
    }
  }

  function mark(name) {
    /* the sign-in's steps and the first table drawn, for bench/bench_activity.py */
    if (window.performance && performance.mark && !performance.getEntriesByName(name).length) {
      performance.mark(name);
    }
  }

  function show(frame) {
    if (typeof frame.html === "string" && typeof frame.seq === "number") {
      if (frame.seq >= seq || (frame.over && !over)) {
        seq = frame.seq;
        main.appendChild(seatBox);  /* kept whole while the table's part is replaced */
        table.innerHTML = frame.html;
        place();
        tick();
        mark("tavern:table");
      }
      if (frame.over) {
        over = true;
      }
    }
    if (typeof frame.none === "string") {
      table.innerHTML = frame.none;
    }
    if ("panel" in frame) {
      seatBox.innerHTML = typeof frame.panel === "string" ? frame.panel : "";
      seatBox.hidden = typeof frame.panel !== "string";
      tappable();
      if (typeof frame.seat === "number" && mine !== frame.seat) {
        mine = frame.seat;
        place();
      }
    }
    /* an aside or a refusal goes with the seat's panel: none once the game is over (a last move's "You
       played …" comes after the panel is gone) */
    if ((typeof frame.aside === "string" || typeof frame.refused === "string") && !seatBox.hidden) {
      var note = document.createElement("div");
      note.className = "aside";
      note.setAttribute("role", "status");
      if (typeof frame.aside === "string") {
        note.innerHTML = frame.aside;
      } else {
        note.textContent = frame.refused;
      }
      var old = seatBox.querySelector(".aside");
      if (old) {
        old.remove();
      }
      seatBox.insertBefore(note, seatBox.firstChild);
      seatBox.hidden = false;
    }
  }

  function tap(card) {
    /* a card of the player's own: the play button that names it, else the box of a menu of cards */
    var index = card.dataset.card;
    var button = seatBox.querySelector("button[data-press][data-arg='" + index + "']:not([disabled])");
    if (button) {
      button.click();
      return;
    }
    var box = seatBox.querySelector("fieldset[data-menu] input[data-card='" + index + "']:not([disabled])");
    if (box) {
      box.checked = !box.checked;
      card.classList.toggle("picked", box.checked);
      card.setAttribute("aria-pressed", box.checked ? "true" : "false");
    }
  }

  seatBox.addEventListener("click", function (event) {
    var card = event.target.closest(".own-hand img.card[data-card]");
    if (card && !card.closest(".aside") && /^[0-9]+$/.test(card.dataset.card)) {
      tap(card);
      return;
    }
    var button = event.target.closest("button[data-press]");
    if (!button || button.disabled) {
      return;
    }
    var values = [];
    if (typeof button.dataset.value === "string") {  /* one choice of a menu */
      values = [button.dataset.value];
    } else if (button.dataset.values) {
      var menu = button.closest("fieldset[data-menu]");
      values = Array.prototype.map.call(menu.querySelectorAll("input:checked"), function (box) {
        return box.value;
      });
    }
    send({press: button.dataset.press, values: values});
  });

  seatBox.addEventListener("keydown", function (event) {
    /* a card that presses something is a button to the keyboard too */
    var card = event.target.closest(".own-hand img.card[data-card][role='button']");
    if (card && (event.key === "Enter" || event.key === " ")) {
      event.preventDefault();
      tap(card);
    }
  });

  function tappable() {
    /* the player's cards that a control names: focusable, read as buttons, their alt their name */
    var cards = seatBox.querySelectorAll(".own-hand img.card[data-card]");
    Array.prototype.forEach.call(cards, function (card) {
      var index = card.dataset.card;
      var named = seatBox.querySelector("button[data-press][data-arg='" + index + "']:not([disabled]), "
        + "fieldset[data-menu] input[data-card='" + index + "']:not([disabled])");
      if (named && /^[0-9]+$/.test(index)) {
        card.tabIndex = 0;
        card.setAttribute("role", "button");
        var box = named.tagName === "INPUT" ? named : null;
        if (box) {
          card.setAttribute("aria-pressed", box.checked ? "true" : "false");
          card.classList.toggle("picked", box.checked);
        }
      }
    });
  }

  seatBox.addEventListener("change", function (event) {
    var menu = event.target;
    if (menu.type === "checkbox" && /^[0-9]+$/.test(menu.dataset.card || "")) {
      var card = seatBox.querySelector(".own-hand img.card[data-card='" + menu.dataset.card + "']");
      if (card) {
        card.classList.toggle("picked", menu.checked);
        card.setAttribute("aria-pressed", menu.checked ? "true" : "false");
      }
    }
  });

  function connect() {
    pings.opened();
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(scheme + location.host + "/a/ws?lang=" + encodeURIComponent(words.lang));
    socket.addEventListener("open", function () {
      mark("tavern:socket");
      delay = 1000;
      socket.send(session);
      say(words.live);
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
      if (frame && typeof frame === "object") {
        show(frame);
      }
    });
    socket.addEventListener("close", function (event) {
      socket = null;
      var why = ENDED[event.code];
      if (why) {
        say(words[why]);
      } else if (!over) {
        say(words.reconnecting);
        window.setTimeout(connect, delay);
        delay = Math.min(delay * 2, 30000);
      }
    });
  }

  function random() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) {
      return ("0" + b.toString(16)).slice(-2);
    }).join("");
  }

  async function start() {
    var sdk = new window.DiscordEmbedded.DiscordSDK(words.client, {disableConsoleLogOverride: true});
    await sdk.ready();
    mark("tavern:ready");
    var granted = await sdk.commands.authorize({
      client_id: words.client,
      response_type: "code",
      state: random(),
      prompt: "none",
      scope: ["identify"]
    });
    var answer = await fetch("/a/token", {
      method: "POST",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify({code: granted.code, instance_id: sdk.instanceId}),
      credentials: "omit"
    });
    if (!answer.ok) {
      throw new Error("sign-in " + answer.status);
    }
    var tokens = await answer.json();
    mark("tavern:signed");
    await sdk.commands.authenticate({access_token: tokens.access_token});
    mark("tavern:authenticated");
    session = tokens.session;
    connect();
  }

  window.setInterval(tick, 1000);
  start().catch(function () {
    say(words.failed);
  });
})();
