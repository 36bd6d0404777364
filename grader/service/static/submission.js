// The submission page while it is queued or running: asks the JSON API every second and
// updates the status, the place in the queue and the rubric items as they finish; when the
// report is ready, the page reloads to show it. Text goes in with textContent only.
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live) { return; }
  var api = live.getAttribute("data-api");
  var statusNode = document.getElementById("status");
  var whereNode = document.getElementById("where");
  var itemsNode = document.getElementById("items");
  var delay = 1000;

  function wait(seconds) {
    if (seconds === null || seconds === undefined) { return ""; }
    seconds = Math.max(0, Math.round(seconds));
    return seconds < 100 ? seconds + " s" : Math.ceil(seconds / 60) + " min";
  }

  function show(data) {
    statusNode.textContent = data.status === "error" ? "grader error" : data.status;
    var where = "";
    if (data.status === "queued" && data.queue_position) {
      where = ": number " + data.queue_position + " in the queue";
    }
    if (data.estimated_wait !== null && data.estimated_wait !== undefined) {
      where += ", report in about " + wait(data.estimated_wait);
    }
    whereNode.textContent = where;
    while (itemsNode.firstChild) { itemsNode.removeChild(itemsNode.firstChild); }
    (data.items || []).forEach(function (item) {
      var li = document.createElement("li");
      li.textContent = item.name + ": " + item.score + " / " + item.max_score;
      itemsNode.appendChild(li);
    });
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
          window.location.reload();
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
