import { html, type Safe } from '../../checkout/escape.ts';

/**
 * The passkey prompt starts from the button (console.js); without script the page says so. The
 * sandbox's (the demo's) invites come from its own database, so its hint carries --sandbox.
 */
export function signInBody(livemode: boolean): Safe {
  const invite = livemode
    ? html`<p class="hint">No passkey here yet? Ask the operator for an invite link (<code>payd console invite --name "…"</code>).</p>`
    : html`<p class="hint">No passkey here yet? This is the sandbox (the demo): in a terminal beside it, run <code id="sandbox-invite">npx payd --sandbox console invite --name "my laptop"</code> and open the link it prints in this browser, at this address.</p>`;
  return html`<section class="card narrow">
<p>Sign in with the passkey on this device.</p>
<button type="button" id="passkey-sign-in" class="primary">Sign in with passkey</button>
<p class="error" id="passkey-error" role="alert" hidden></p>
<noscript><p class="error">Signing in needs JavaScript (the passkey prompt is started by the page).</p></noscript>
${invite}
</section>`;
}

export function inviteBody(name: string, token: string): Safe {
  return html`<section class="card narrow">
<p>This link adds a passkey named <strong>${name}</strong> for the payd console. It works once, for 15 minutes.</p>
<button type="button" id="passkey-register" class="primary" data-token="${token}">Create passkey</button>
<p class="error" id="passkey-error" role="alert" hidden></p>
<noscript><p class="error">Creating a passkey needs JavaScript.</p></noscript>
</section>`;
}
