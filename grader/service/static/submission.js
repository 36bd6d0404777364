// The submission page while it is queued or running: asks the JSON API (when the server
// says to: poll_after) and shows the status and what the page says of it (phase,
// status_text: "number 2 in the queue, report in about 30 s", "grading now: 12 s so far"),
// the rubric items as they finish (items) and those still to come (pending). When the
// report is ready it shows every item, then reloads the page to show the report.
// Text goes in with textContent only.
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live) { return; }
  var api = live.getAttribute("data-api");
  var statusNode = document.getElementById("status");
  var whereNode = document.getElementById("where");
  var itemsNode = document.getElementById("items");
  var pendingNode = document.getElementById("pending");
  var delay = 1000;
  var SHOW_LAST_MS = 800;     // the finished list stays this long before the report replaces it

  function points(value) {
    return (value === null || value === undefined) ? "?" : String(value);
  }

  function show(data) {
    var phase = data.phase || data.status;
    statusNode.textContent = phase === "error" ? "grader error" : phase;
    whereNode.textContent = data.status_text ? ": " + data.status_text : "";
    while (itemsNode.firstChild) { itemsNode.removeChild(itemsNode.firstChild); }
    (data.items || []).forEach(function (item) {
      var li = document.createElement("li");
      li.textContent = item.name + ": " + points(item.score) + " / " + points(item.max_score);
      itemsNode.appendChild(li);
    });
    if (pendingNode) {
      var names = (data.pending || []).map(function (item) { return item.name; });
      pendingNode.textContent = names.length ? "Still to come: " + names.join(", ") + "." : "";
    }
  }

  function poll() {
    fetch(api, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (response) {
        if (!response.ok) { throw new Error("HTTP " + response.status); }
        return response.json();
      })
      .then(function (data) {
        show(data);
        if (data.status === "done" || data.status === "error") {
          // The list reaches the last item before the report replaces it.
          window.setTimeout(function () { window.location.reload(); }, SHOW_LAST_MS);
          return;
        }
        // The server says when to ask again (every second while graded, less often while
        // far back in the queue).
        delay = data.poll_after ? data.poll_after * 1000 : 1000;
        window.setTimeout(poll, delay);
      })
      .catch(function () {
        delay = Math.min(delay * 2, 15000);     // the server restarts: keep asking, slower
        window.setTimeout(poll, delay);
      });
  }

  window.setTimeout(poll, delay);
}());
