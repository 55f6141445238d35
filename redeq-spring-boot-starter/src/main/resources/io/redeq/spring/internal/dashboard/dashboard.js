// redeq dashboard: small enhancements only; every page works without this script.
(function () {
  'use strict';
  // Destructive actions ask first.
  document.querySelectorAll('form[data-confirm]').forEach(function (form) {
    form.addEventListener('submit', function (event) {
      if (!window.confirm(form.getAttribute('data-confirm'))) {
        event.preventDefault();
      }
    });
  });
  // Payloads are JSON text: indent them for reading.
  document.querySelectorAll('pre[data-json]').forEach(function (pre) {
    try {
      pre.textContent = JSON.stringify(JSON.parse(pre.textContent), null, 2);
    } catch (e) {
      // not JSON after all: leave it as stored
    }
  });
  // Auto-refresh every 5 s, remembered per browser; paused while a payload is open or a field has focus.
  var box = document.getElementById('auto-refresh');
  if (box) {
    box.checked = window.localStorage.getItem('redeq-auto-refresh') === 'on';
    box.addEventListener('change', function () {
      window.localStorage.setItem('redeq-auto-refresh', box.checked ? 'on' : 'off');
    });
    window.setInterval(function () {
      var busy = document.querySelector('details[open]') || document.activeElement.tagName === 'INPUT';
      if (box.checked && !busy) {
        window.location.reload();
      }
    }, 5000);
  }
}());
