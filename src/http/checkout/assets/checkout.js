// Hosted checkout page: countdown, copy buttons and live status.
// Live status comes over a websocket; if that fails the page polls the JSON status.
(function () {
  'use strict';
  var root = document.getElementById('checkout');
  document.documentElement.className += ' js';
  if (!root) return;

  var intentId = root.getAttribute('data-intent-id');
  var statusText = document.getElementById('status-text');
  var countdown = document.getElementById('countdown');
  var returnLink = document.getElementById('return-link');
  var paidRef = document.getElementById('paid-ref');
  var TEXT = { pending: 'Waiting for your payment', held: 'We received a payment: the shop is checking it', settled: 'Payment received', expired: 'This payment request has expired', canceled: 'This payment request was canceled' };
  var REDIRECT_DELAY_MS = 2000;
  var POLL_MS = 1000;
  var POLL_EXPIRED_MS = 5000;

  var state = {
    status: root.getAttribute('data-status'),
    expiresAt: Date.parse(root.getAttribute('data-expires-at')),
    // Server time minus ours, so the countdown follows the server's clock.
    skew: Number(root.getAttribute('data-server-now')) - Date.now(),
  };
  // Payments the page was drawn with: a held payment or a part paid changes what it says.
  var shownPayments = Number(root.getAttribute('data-payments') || 0);
  var reloading = false;
  var redirectTimer = null;
  var pollTimer = null;
  var socket = null;

  function apply(s) {
    if (!s || s.intent_id !== intentId || reloading) return;
    // The server draws the page again when a payment arrived that it does not show yet
    // (held, or a part with the rest due: it then asks for exactly the rest), or when an intent that
    // already showed payments turns paid (accepted): its receipt shows what was received.
    // A plain settlement of an intent without earlier payments just turns paid, without a reload.
    var changed = typeof s.payments === 'number' && s.payments !== shownPayments;
    if (changed ? s.status !== 'settled' || shownPayments > 0 : s.status === 'settled' && shownPayments > 0 && state.status !== 'settled') {
      reloading = true;
      stopPolling();
      window.location.reload();
      return;
    }
    state.skew = Number(s.now) - Date.now();
    state.expiresAt = Date.parse(s.expires_at);
    // Money held on an unpaid intent is the page's own state: the server draws it, and only a
    // settlement (the shop accepted it) moves the page on, by the reload above.
    if (state.status === 'held' && s.status !== 'settled') return;
    state.status = s.status;
    root.setAttribute('data-redirect-url', s.redirect_url || '');
    root.setAttribute('data-status', s.status);
    statusText.textContent = TEXT[s.status] || s.status;
    if (paidRef && s.transaction_hash) paidRef.textContent = s.transaction_hash;
    tick();
    if (s.status === 'settled') settled(s.redirect_url);
  }

  function settled(url) {
    stopPolling();
    if (!url || redirectTimer) return;
    returnLink.setAttribute('href', url);
    redirectTimer = setTimeout(function () {
      window.location.assign(url);
    }, REDIRECT_DELAY_MS);
  }

  function pad(n) {
    return n < 10 ? '0' + n : String(n);
  }

  function tick() {
    if (!countdown) return;
    var s = Math.max(0, Math.ceil((state.expiresAt - (Date.now() + state.skew)) / 1000));
    var h = Math.floor(s / 3600);
    var m = Math.floor((s % 3600) / 60);
    countdown.textContent = (h > 0 ? h + ':' + pad(m) : String(m)) + ':' + pad(s % 60);
  }

  // A priced intent's quote holds until a time the server writes in UTC: the payer reads it in
  // their own time zone and words ("8:02 pm IST").
  var quoteUntil = document.getElementById('quote-until');
  if (quoteUntil) {
    var until = new Date(quoteUntil.getAttribute('datetime'));
    if (!isNaN(until.getTime())) quoteUntil.textContent = until.toLocaleTimeString([], { hour: 'numeric', minute: '2-digit', timeZoneName: 'short' });
  }

  // --- live status -----------------------------------------------------------
  function poll() {
    pollTimer = null;
    fetch('/pay/' + intentId + '/status', { cache: 'no-store', headers: { accept: 'application/json' } })
      .then(function (r) {
        return r.ok ? r.json() : null;
      })
      .then(apply, function () {})
      .then(schedulePoll);
  }

  function schedulePoll() {
    if (state.status === 'settled' || pollTimer) return;
    pollTimer = setTimeout(poll, state.status === 'expired' || state.status === 'canceled' ? POLL_EXPIRED_MS : POLL_MS);
  }

  function stopPolling() {
    if (pollTimer) clearTimeout(pollTimer);
    pollTimer = null;
  }

  function connect() {
    if (state.status === 'settled') return settled(root.getAttribute('data-redirect-url'));
    try {
      socket = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/pay/' + intentId + '/ws');
    } catch (e) {
      return schedulePoll();
    }
    socket.onmessage = function (e) {
      try {
        apply(JSON.parse(e.data));
      } catch (err) {
        /* ignore a malformed message; the next one or the poll corrects it */
      }
    };
    // A failed or dropped socket (proxy without websockets, network change) falls back to polling.
    socket.onclose = function () {
      socket = null;
      schedulePoll();
    };
  }

  // --- copy buttons ----------------------------------------------------------
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    // Plain-http pages have no Clipboard API: copy through a selected, off-screen textarea.
    var ta = document.createElement('textarea');
    ta.value = text;
    ta.setAttribute('readonly', '');
    ta.className = 'offscreen';
    document.body.appendChild(ta);
    ta.select();
    var ok = document.execCommand('copy');
    document.body.removeChild(ta);
    return ok ? Promise.resolve() : Promise.reject(new Error('copy failed'));
  }

  Array.prototype.forEach.call(document.querySelectorAll('button.copy'), function (btn) {
    btn.addEventListener('click', function () {
      var source = document.getElementById(btn.getAttribute('data-copy'));
      if (!source) return;
      // The amount shows "₹1,499.00"; an app's amount field wants "1499.00".
      copyText(source.getAttribute('data-copy-value') || source.textContent.trim()).then(
        function () {
          btn.textContent = 'Copied';
          btn.classList.add('done');
          setTimeout(function () {
            btn.textContent = 'Copy';
            btn.classList.remove('done');
          }, 1500);
        },
        function () {
          btn.textContent = 'Select and copy';
        },
      );
    });
  });

  tick();
  setInterval(tick, 1000);
  connect();
})();
