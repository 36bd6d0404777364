// Launches without cookies (grader/service/lti/storage.py): the LTI client-side postMessage
// storage. The page's element #lti-storage says what to do (data-* attributes, set by the
// server): "put" keeps the login's state in the LMS's storage frame, then goes on to the
// LMS's authorization URL; "get" asks the frame for it and, when the LMS gives back the
// very state, posts the launch (the form #lti-checked) to the tool again. Messages are sent
// to the LMS's origin only, and answers are taken only from it and only for our message_id.
(function () {
  "use strict";
  var node = document.getElementById("lti-storage");
  if (!node) { return; }
  var action = node.getAttribute("data-action");
  var target = node.getAttribute("data-target");
  var origin = node.getAttribute("data-origin");
  var key = node.getAttribute("data-key");
  var value = node.getAttribute("data-value");
  var WAIT_MS = 5000;          // an LMS that does not answer: give up (put: go on anyway)
  var RESEND_MS = 400;         // the same message again until answered: the LMS's storage
                               // frame may load after this one and miss the first

  function storageFrame() {
    var parent = window.parent !== window ? window.parent : window.opener;
    if (!parent) { return null; }
    if (target === "_parent") { return parent; }
    try { return parent.frames[target] || null; } catch (problem) { return null; }
  }

  function ask(subject, fields, done) {
    if (!storageFrame()) { done(null); return; }
    var id = "ttt-" + Math.random().toString(36).slice(2) + Date.now().toString(36);
    var finished = false;
    var resend = null;
    function finish(answer) {
      if (finished) { return; }
      finished = true;
      window.clearInterval(resend);
      window.removeEventListener("message", listen);
      done(answer);
    }
    function listen(event) {
      var data = event.data;
      if (event.origin !== origin || !data || typeof data !== "object" ||
          data.subject !== subject + ".response" || data.message_id !== id) { return; }
      finish(data.error ? null : data);
    }
    window.addEventListener("message", listen);
    var message = {subject: subject, message_id: id, key: key};
    for (var name in fields) { message[name] = fields[name]; }
    function send() {       // put and get are idempotent: a repeat changes nothing
      var frame = storageFrame();
      if (frame) { frame.postMessage(message, origin); }
    }
    send();
    resend = window.setInterval(send, RESEND_MS);
    window.setTimeout(function () { finish(null); }, WAIT_MS);
  }

  function say(text) {
    var where = document.getElementById("lti-storage-status");
    if (where) { where.textContent = text; }
  }

  if (action === "put") {
    ask("lti.put_data", {value: value}, function () {
      // Stored or not, the login goes on: where the cookie comes back it is enough.
      window.location.replace(node.getAttribute("data-next"));
    });
  } else if (action === "get") {
    ask("lti.get_data", {}, function (answer) {
      if (answer && answer.key === key && answer.value === value) {
        document.getElementById("lti-checked").submit();
      } else {
        node.setAttribute("data-failed", "1");
        say("The LMS could not confirm that this launch started in this browser. " +
            "Open the assignment from the LMS in a new tab.");
      }
    });
  }
}());
