// Sign in with an API key. The key is checked with the host before it is kept (session storage, this tab
// only); the optional HMAC secret stays in this page's memory and signs trade-flavoured mutations.
import { errorText, h } from '../dom.js';
import { type Session, signIn } from '../session.js';

export function signInView(onSignedIn: (session: Session) => void): HTMLElement {
  const key = h('input', { id: 'api-key', name: 'api-key', type: 'password', autocomplete: 'off', required: true, spellcheck: 'false', 'aria-describedby': 'api-key-help' });
  const secret = h('input', { id: 'hmac-secret', name: 'hmac-secret', type: 'password', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'hmac-help' });
  const status = h('p', { id: 'sign-in-status', role: 'alert', className: 'status' });
  const submit = h('button', { type: 'submit' }, 'Sign in');
  const form = h(
    'form',
    {
      className: 'sign-in',
      'aria-labelledby': 'sign-in-title',
      onSubmit: async (event: Event) => {
        event.preventDefault();
        submit.disabled = true;
        status.textContent = 'Checking the key…';
        try {
          onSignedIn(await signIn(key.value, secret.value));
        } catch (error) {
          status.textContent = `The host refused the key: ${errorText(error)}`;
          key.focus();
        } finally {
          submit.disabled = false;
        }
      },
    },
    h('h1', { id: 'sign-in-title' }, 'EQL console'),
    h('label', { for: 'api-key' }, 'API key'),
    key,
    h('p', { id: 'api-key-help', className: 'help' }, 'Kept in this tab’s session storage, sent only in the x-svc-api-key header, never in a URL.'),
    h('label', { for: 'hmac-secret' }, 'HMAC secret (optional)'),
    secret,
    h('p', { id: 'hmac-help', className: 'help' }, 'Only needed to create or cancel queries that trade. Kept in this page’s memory only: a reload forgets it.'),
    submit,
    status,
  );
  return h('main', { id: 'main', className: 'sign-in-page' }, form);
}
