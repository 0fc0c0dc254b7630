// The payd console's only script (served same-origin: the CSP forbids inline code).
// Passkey sign-in and registration (WebAuthn), and a confirmation before destructive forms.
'use strict';
(function () {
  var b64 = {
    toBytes: function (s) {
      var str = atob(s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4));
      var out = new Uint8Array(str.length);
      for (var i = 0; i < str.length; i++) out[i] = str.charCodeAt(i);
      return out.buffer;
    },
    fromBytes: function (buf) {
      var bytes = new Uint8Array(buf);
      var s = '';
      for (var i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
      return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    },
  };

  function post(url, body) {
    return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body || {}), credentials: 'same-origin' }).then(function (res) {
      return res.json().then(function (json) {
        if (!res.ok) throw new Error(json.error || 'refused (' + res.status + ')');
        return json;
      });
    });
  }

  function showError(err) {
    var el = document.getElementById('passkey-error');
    if (!el) return;
    el.textContent = err && err.name === 'NotAllowedError' ? 'The passkey prompt was closed or timed out. Try again.' : String((err && err.message) || err);
    el.hidden = false;
  }

  // The server's options are JSON (base64url strings); the browser wants ArrayBuffers.
  function creationOptions(o) {
    var pk = Object.assign({}, o, { challenge: b64.toBytes(o.challenge), user: Object.assign({}, o.user, { id: b64.toBytes(o.user.id) }) });
    pk.excludeCredentials = (o.excludeCredentials || []).map(function (c) { return Object.assign({}, c, { id: b64.toBytes(c.id) }); });
    return pk;
  }
  function requestOptions(o) {
    var pk = Object.assign({}, o, { challenge: b64.toBytes(o.challenge) });
    pk.allowCredentials = (o.allowCredentials || []).map(function (c) { return Object.assign({}, c, { id: b64.toBytes(c.id) }); });
    return pk;
  }
  function credentialJson(cred) {
    var r = cred.response;
    var response = { clientDataJSON: b64.fromBytes(r.clientDataJSON) };
    if (r.attestationObject) {
      response.attestationObject = b64.fromBytes(r.attestationObject);
      response.transports = r.getTransports ? r.getTransports() : [];
    }
    if (r.authenticatorData) response.authenticatorData = b64.fromBytes(r.authenticatorData);
    if (r.signature) response.signature = b64.fromBytes(r.signature);
    if (r.userHandle) response.userHandle = b64.fromBytes(r.userHandle);
    return { id: cred.id, rawId: b64.fromBytes(cred.rawId), type: cred.type, response: response, clientExtensionResults: cred.getClientExtensionResults(), authenticatorAttachment: cred.authenticatorAttachment || undefined };
  }

  function busy(button, on) {
    button.disabled = on;
    button.setAttribute('aria-busy', on ? 'true' : 'false');
  }

  var register = document.getElementById('passkey-register');
  if (register) {
    register.addEventListener('click', function () {
      var token = register.getAttribute('data-token');
      busy(register, true);
      post('/console/webauthn/register/options', { token: token })
        .then(function (o) { return navigator.credentials.create({ publicKey: creationOptions(o) }); })
        .then(function (cred) { return post('/console/webauthn/register', { token: token, response: credentialJson(cred) }); })
        .then(function (r) { location.assign(r.next); })
        .catch(function (err) { busy(register, false); showError(err); });
    });
  }

  var signIn = document.getElementById('passkey-sign-in');
  if (signIn) {
    signIn.addEventListener('click', function () {
      busy(signIn, true);
      post('/console/webauthn/login/options')
        .then(function (o) { return navigator.credentials.get({ publicKey: requestOptions(o) }); })
        .then(function (cred) { return post('/console/webauthn/login', { response: credentialJson(cred) }); })
        .then(function (r) { location.assign(r.next); })
        .catch(function (err) { busy(signIn, false); showError(err); });
    });
  }

  // Destructive forms say what they will do first.
  document.addEventListener('submit', function (e) {
    var form = e.target;
    var question = form.getAttribute && form.getAttribute('data-confirm');
    if (question && !window.confirm(question)) e.preventDefault();
  });
})();
